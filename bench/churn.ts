/**
 * Session churn: N cycles of `new_session` + `close_session` over one WebSocket against the real service (fake
 * model, inspector on loopback). Reads resident memory and the heap after a forced full GC at the 1,000th cycle
 * (or the middle one when N is smaller) and after the last one: a closed session must leave nothing behind, so
 * growth between the two readings is what each session leaks. Issue 21 asks for at most 40 MiB of RSS growth
 * between the 1,000th and the 6,000th cycle.
 * Usage: npm run bench:churn [-- --cycles 2000 --write] (6,000 cycles by default: about ten seconds)
 */
import { StressClient } from "../stress/client.js";
import { startService } from "../stress/service.js";
import { writeBenchSection } from "./doc-section.js";
import { readBenchOptions } from "./options.js";
import { srcCommit } from "./src-commit.js";
import { processTreeRssMiB } from "./process-rss.js";

const options = readBenchOptions();
const CYCLES = options.cycles;
if (CYCLES < 2) throw new Error(`--cycles must be at least 2, got ${CYCLES}`);
const MARK = CYCLES > 1000 ? 1000 : Math.ceil(CYCLES / 2);
/** Issue 21's goal: RSS growth between the 1,000th and the 6,000th cycle. */
const GOAL_GROWTH_MIB = 40;

const service = await startService();
const client = await StressClient.connect(service.skiff.wsUrl);
// Only the skiff process: the fake model runs in a separate process tree of the bench.
const rss = () => processTreeRssMiB(service.pid);
const readings: { cycle: number; rssMiB: number; heapMiB: number }[] = [];
const started = performance.now();
try {
	for (let cycle = 1; cycle <= CYCLES; cycle++) {
		const { sessionId } = await client.ok({ type: "new_session" });
		await client.ok({ type: "close_session", sessionId });
		if (cycle === MARK || cycle === CYCLES) {
			const heapMiB = await service.heapMiB();
			readings.push({ cycle, rssMiB: rss(), heapMiB });
		}
	}
} finally {
	client.close();
	await service.stop();
}
const commit = srcCommit();
const seconds = (performance.now() - started) / 1000;
const [first, last] = readings as [(typeof readings)[0], (typeof readings)[0]];
const growth = (a: number, b: number) => `${b - a >= 0 ? "+" : ""}${(b - a).toFixed(1)}`;
// The goal is stated for the default run; another number of cycles is a different measurement.
const goalMet = first.cycle !== 1000 || last.cycle !== 6000 ? "– (not a 6,000-cycle run)" : last.rssMiB - first.rssMiB <= GOAL_GROWTH_MIB ? "met" : "not met";
const table = [
	`Measured ${new Date().toISOString().slice(0, 10)} on src/ as of commit ${commit} (built bundle), ${CYCLES} cycles of new_session + close_session over one WebSocket in ${seconds.toFixed(0)} s; heap read after a forced full GC.`,
	"",
	`| metric | after cycle ${first.cycle} (MiB) | after cycle ${last.cycle} (MiB) | growth (MiB) | per 1,000 cycles (MiB) | goal (growth, MiB) | met |`,
	"|---|---|---|---|---|---|---|",
	`| resident memory (skiff process) | ${first.rssMiB.toFixed(1)} | ${last.rssMiB.toFixed(1)} | ${growth(first.rssMiB, last.rssMiB)} | ${(((last.rssMiB - first.rssMiB) * 1000) / (last.cycle - first.cycle)).toFixed(1)} | ≤ +${GOAL_GROWTH_MIB} between cycles 1,000 and 6,000 | ${goalMet} |`,
	`| JavaScript heap after GC | ${first.heapMiB.toFixed(1)} | ${last.heapMiB.toFixed(1)} | ${growth(first.heapMiB, last.heapMiB)} | ${(((last.heapMiB - first.heapMiB) * 1000) / (last.cycle - first.cycle)).toFixed(1)} | – | – |`,
].join("\n");
console.log(table);
if (options.write) writeBenchSection("churn", table);
