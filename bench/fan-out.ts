/**
 * Fan-out benchmark (issue 21, item 2): 100 WebSocket clients follow one session through a 20,000-delta reply;
 * each iteration starts a fresh skiff and checks every client for every character in seq order
 * (stress/scenarios/fan-out.ts, whose run this reuses). Prints medians with min–max and the goal beside them;
 * `--write` replaces the fan-out section of docs/benchmarks.md. Needs `npm run build`.
 * Usage: node --import tsx bench/fan-out.ts [--iterations 5] [--deltas 20000] [--write]
 */
import { cpus, loadavg } from "node:os";
import { writeBenchSection } from "./doc-section.js";
import { readBenchOptions } from "./options.js";
import { median, medianWithSpread } from "../stress/stats.js";
import { FAN_OUT_GOAL_S, type FanOutRun, fanOutRun } from "../stress/scenarios/fan-out.js";

const CLIENTS = 100;
const options = readBenchOptions();
/** The machine is shared: the load average says how much else ran beside the benchmark. */
const loadBefore = loadavg()[0]!;
const runs: FanOutRun[] = [];
for (let i = 0; i < options.iterations; i++) {
	runs.push(await fanOutRun({ clients: CLIENTS, deltas: options.deltas }));
	process.stderr.write(`fan-out iteration ${i + 1}/${options.iterations} done\n`);
}
const failures = runs.flatMap((run) => run.failures);
const last = runs.map((run) => run.lastS);
const row = (label: string, values: number[], digits: number, goal = "–", met = "") => `| ${label} | ${medianWithSpread(values, digits, "min–max")} | ${goal} | ${met} |`;
const table = [
	`Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores, Node ${process.version}, load average (1 min) ${loadBefore.toFixed(1)} before and ${loadavg()[0]!.toFixed(1)} after; ${options.iterations} iterations, each a fresh skiff; ` +
		`${CLIENTS} clients (the one that prompts in the benchmark's process, the others in 4 processes of their own); median (min–max).`,
	"",
	"| metric | median (min–max) | goal | |",
	"|---|---|---|---|",
	row(`${options.deltas.toLocaleString("en")}-delta reply: prompt → end at the last of ${CLIENTS} clients (s)`, last, 2, `≤ ${FAN_OUT_GOAL_S}`, median(last) <= FAN_OUT_GOAL_S ? "met" : "**not met**"),
	row("prompt → end at the first client (s)", runs.map((run) => run.firstS), 2),
	`| clients with every character, in seq order (all iterations) | ${runs.reduce((sum, run) => sum + run.complete, 0)} of ${runs.length * CLIENTS} | all | ${failures.length === 0 ? "met" : "**not met**"} |`,
	row("clients that got merged deltas (fell behind: their seqs skipped)", runs.map((run) => run.merged), 0),
	row(
		`delta events the service published for the reply (one turn's deltas merged at the source; what a client that kept up got)`,
		runs.flatMap((run) => (run.publishedEvents === undefined ? [] : [run.publishedEvents])),
		0,
	),
	row("RSS before the reply (MiB)", runs.map((run) => run.rssBefore), 1),
	row("RSS peak during the reply (MiB)", runs.map((run) => run.rssPeak), 1),
].join("\n");
console.log(table);
for (const failure of failures.slice(0, 10)) console.log(`FAILED: ${failure}`);
if (options.write) writeBenchSection("fan-out", table);
if (failures.length > 0) process.exitCode = 1;
