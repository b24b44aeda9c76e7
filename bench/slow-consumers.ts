/**
 * Slow-consumer benchmark (issue 21, item 3): 30 clients stop reading while a session streams 200,000
 * one-character deltas at full loopback speed; another client pings back to back from a process of its own.
 * Each iteration starts a fresh skiff (stress/scenarios/slow-consumers.ts, whose run this reuses). Prints the
 * slowest ping and resident memory 10 s after the reply against the goals; `--write` replaces the
 * slow-consumers section of docs/benchmarks.md. Needs `npm run build`.
 * Usage: node --import tsx bench/slow-consumers.ts [--iterations 5] [--write]
 */
import { cpus, loadavg } from "node:os";
import { writeBenchSection } from "./doc-section.js";
import { readBenchOptions } from "./options.js";
import { median, medianWithSpread, quantile } from "../stress/stats.js";
import { FULL_SPEED_DELTAS, PING_BUDGET_MS, RETURN_AFTER_MS, RSS_RETURN_MIB, type Run, slowConsumerRun } from "../stress/scenarios/slow-consumers.js";

const PAUSED = 30;
const options = readBenchOptions();
/** The machine is shared: the load average says how much else ran beside the benchmark. */
const loadBefore = loadavg()[0]!;
const runs: Run[] = [];
for (let i = 0; i < options.iterations; i++) {
	runs.push(await slowConsumerRun({ paused: PAUSED, deltas: FULL_SPEED_DELTAS, deltaChars: 1, paced: false, returnAfterMs: RETURN_AFTER_MS }));
	process.stderr.write(`slow-consumers iteration ${i + 1}/${options.iterations} done\n`);
}
const failures = runs.flatMap((run) => run.failures);
const pingMax = runs.map((run) => Math.max(...run.pings));
const rssGrowth = runs.map((run) => run.rssAfter - run.rssBefore);
const met = (ok: boolean) => (ok ? "met" : "**not met**");
const row = (label: string, values: number[], digits: number, goal = "–", verdict = "") => `| ${label} | ${medianWithSpread(values, digits, "min–max")} | ${goal} | ${verdict} |`;
const table = [
	`Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores, Node ${process.version}, load average (1 min) ${loadBefore.toFixed(1)} before and ${loadavg()[0]!.toFixed(1)} after; ${options.iterations} iterations, each a fresh skiff; ` +
		`${PAUSED} clients stop reading (paused TCP sockets) during a reply of ${FULL_SPEED_DELTAS.toLocaleString("en")} one-character deltas at full loopback speed, then read again; ` +
		`pings are sent back to back from another process from before the reply until every paused client is done; median (min–max) over the iterations.`,
	"",
	"| metric | median (min–max) | goal | |",
	"|---|---|---|---|",
	row("slowest ping of the run (ms)", pingMax, 1, `≤ ${PING_BUDGET_MS}`, met(median(pingMax) <= PING_BUDGET_MS)),
	row("99th percentile ping (ms)", runs.map((run) => quantile(run.pings, 0.99)), 1),
	row(`RSS ${RETURN_AFTER_MS / 1000} s after the reply minus RSS before it (MiB)`, rssGrowth, 1, `≤ ${RSS_RETURN_MIB}`, met(median(rssGrowth) <= RSS_RETURN_MIB)),
	row("RSS before the reply (MiB)", runs.map((run) => run.rssBefore), 1),
	row("RSS peak (MiB)", runs.map((run) => run.rssPeak), 1),
	row("prompt → end of the reply at the reading client (s)", runs.map((run) => run.seconds), 2),
	`| paused clients that resumed with the whole text (all iterations) | ${runs.reduce((sum, run) => sum + run.resumed, 0)} of ${runs.length * PAUSED} | – | |`,
].join("\n");
console.log(table);
for (const failure of failures.slice(0, 10)) console.log(`FAILED: ${failure}`);
if (options.write) writeBenchSection("slow-consumers", table);
if (failures.length > 0) process.exitCode = 1;
