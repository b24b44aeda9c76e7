/**
 * `npm run stress`: the reliability scenarios one after another against real skiff processes on loopback
 * (docs/reliability.md says what each tries). Prints one row per scenario; with `--write` (which needs the
 * full run) the table replaces the results section of docs/reliability.md. `--only a,b` runs some scenarios
 * (by key), `--seed N` fixes the fuzz. Exits 1 when any scenario found a failure.
 */
import { cpus, totalmem } from "node:os";
import { parseArgs } from "node:util";
import { writeReliabilitySection } from "./doc-section.js";
import { machineLoad } from "./process-stats.js";
import { fmt, type ScenarioResult } from "./result.js";
import { diskFaults, damagedFiles } from "./scenarios/disk.js";
import { fanOut } from "./scenarios/fan-out.js";
import { fuzz } from "./scenarios/fuzz.js";
import { hangingGitHook } from "./scenarios/git-hooks.js";
import { halfOpen } from "./scenarios/half-open.js";
import { killNine } from "./scenarios/kill.js";
import { manySessions } from "./scenarios/many-sessions.js";
import { adversarialRedaction } from "./scenarios/redaction.js";
import { slowConsumers } from "./scenarios/slow-consumers.js";
import { soak } from "./scenarios/soak.js";
import { twoProcesses } from "./scenarios/two-processes.js";
import { streamedSecrets } from "./scenarios/streamed-secrets.js";

const { values } = parseArgs({
	options: {
		write: { type: "boolean", default: false },
		only: { type: "string" },
		seed: { type: "string" },
	},
});
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
if (!Number.isSafeInteger(seed)) throw new Error(`--seed must be a whole number, got "${values.seed}"`);

/** The scenarios in the order they run; each starts and stops its own skiff. */
const SCENARIOS: Record<string, () => Promise<ScenarioResult>> = {
	fuzz: () => fuzz({ inputs: 100_000, seed }),
	"fan-out": () => fanOut({ clients: 100, deltas: 20_000 }),
	"slow-consumers": () => slowConsumers({ paused: 30 }),
	sessions: () => manySessions({ sessions: 20, deltas: 5_000 }),
	kill: () => killNine({ kills: 25 }),
	disk: () => diskFaults(),
	damaged: () => damagedFiles(),
	"half-open": () => halfOpen({ connections: 300 }),
	soak: () => soak({ cycles: 1_000 }),
	"two-processes": () => twoProcesses({ rounds: 10 }),
	"git-hooks": () => hangingGitHook({ signalRounds: 12 }),
	"streamed-secrets": () => streamedSecrets({ replies: 60, seed }),
	redaction: () => adversarialRedaction(),
};

const only = values.only?.split(",").map((s) => s.trim());
for (const key of only ?? []) if (!(key in SCENARIOS)) throw new Error(`--only: unknown scenario "${key}" (known: ${Object.keys(SCENARIOS).join(", ")})`);
if (values.write && only) throw new Error("--write needs the full run: drop --only");

const escape = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
const results: ScenarioResult[] = [];
const loadBefore = machineLoad();
const started = performance.now();
for (const [key, run] of Object.entries(SCENARIOS)) {
	if (only && !only.includes(key)) continue;
	process.stdout.write(`${key}: running… `);
	const t = performance.now();
	let result: ScenarioResult;
	try {
		result = await run();
	} catch (error) {
		result = { name: key, tried: "(the scenario itself failed)", count: "–", failures: [String(error instanceof Error ? error.stack : error)], figure: "–" };
	}
	result.durationMs = performance.now() - t;
	results.push(result);
	console.log(`${result.failures.length === 0 ? "ok" : `${result.failures.length} failure(s)`} in ${fmt(result.durationMs / 1000, 1)} s`);
	console.log(`  ${result.count}: ${result.figure}`);
	for (const failure of result.failures) console.log(`  FAILED: ${failure}`);
}
const loadAfter = machineLoad();
const totalS = (performance.now() - started) / 1000;

const rows = results.map(
	(r) =>
		`| ${escape(r.name)} | ${escape(r.tried)} | ${escape(r.count)} | ${r.failures.length === 0 ? "none" : escape(r.failures.join("; "))} | ${escape(r.figure)} | ${fmt((r.durationMs ?? 0) / 1000, 0)} |`,
);
const header = [
	`Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model ?? "CPU"}, ${fmt(totalmem() / 2 ** 30, 0)} GiB, Node ${process.version}; whole run ${fmt(totalS, 0)} s. Load average (1 min) ${fmt(loadBefore.load1, 2)} before and ${fmt(loadAfter.load1, 2)} after on ${loadBefore.cores} cores: the machine is shared, so timings include other work.`,
	"",
	"| scenario | what was tried | how many | failed | figures | s |",
	"|---|---|---|---|---|---|",
	...rows,
].join("\n");
console.log(`\n${header}`);
if (values.write) writeReliabilitySection(header);
process.exit(results.some((r) => r.failures.length > 0) ? 1 : 0);
