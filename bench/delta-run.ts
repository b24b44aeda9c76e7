/**
 * Micro benchmark of the hub's merging of streaming deltas (src/protocol/delta-run.ts, event-hub.ts): what
 * offering one delta that joins the run costs, in bytes allocated on V8's heap and in CPU time. Every delta
 * of the measured burst is offered in one turn of the event loop, so all but the first of each run join it
 * (a run is published at MAX_RUN_CHARS). The events offered are built before measuring; one follower
 * receives what is published (its JSON is built as for any follower).
 * Bytes: young-generation growth over the burst with a young generation large enough that no collection
 * runs during it (checked: a collection during the burst makes the round count as unmeasured).
 * Usage: node --expose-gc --max-semi-space-size=256 --import tsx bench/delta-run.ts [--deltas 200000] [--rounds 9]
 */
import { getHeapSpaceStatistics } from "node:v8";
import { parseArgs } from "node:util";
import { EventHub } from "../src/protocol/event-hub.js";
import { median } from "../stress/stats.js";

const { values } = parseArgs({ options: { deltas: { type: "string" }, rounds: { type: "string" } } });
const DELTAS = Number(values.deltas ?? 200_000);
const ROUNDS = Number(values.rounds ?? 9);
if (!Number.isInteger(DELTAS) || DELTAS <= 0 || !Number.isInteger(ROUNDS) || ROUNDS <= 0) throw new Error("--deltas and --rounds take positive whole numbers");
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc --max-semi-space-size=256");

const youngUsed = (): number => getHeapSpaceStatistics().find((space) => space.space_name === "new_space")!.space_used_size;

/** Three characters a delta, as a fast model's tokens come; content block 0, as pi numbers a reply's text. */
const events = Array.from({ length: DELTAS }, (_, i) => ({
	type: "message_update",
	assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: String(i % 1000).padStart(3, "0") },
}));

/** The burst, in a function of its own so that the warm-up rounds get it optimized as a whole. */
function burst(hub: EventHub): void {
	for (let i = 0; i < events.length; i++) hub.offer(events[i]!);
}

/** Rounds not measured: the JIT compiles the path (an unoptimized loop allocates per iteration itself). */
const WARM_UP_ROUNDS = 3;
const bytes: number[] = [];
const nanos: number[] = [];
let published = 0;
for (let round = 0; round < WARM_UP_ROUNDS + ROUNDS; round++) {
	const hub = new EventHub("bench");
	hub.subscribe(() => published++);
	gc();
	const before = youngUsed();
	const cpu = process.cpuUsage();
	burst(hub);
	const spent = process.cpuUsage(cpu);
	const grown = youngUsed() - before;
	hub.seq; // publishes the last run
	if (round < WARM_UP_ROUNDS) continue;
	nanos.push(((spent.user + spent.system) * 1000) / DELTAS);
	if (grown > 0) bytes.push(grown / DELTAS); // a collection during the burst would shrink the young generation
}
const byteFigure = bytes.length ? `${median(bytes).toFixed(1)} bytes (${bytes.length} of ${ROUNDS} rounds without a collection)` : "unmeasured (a collection ran in every round)";
console.log(`${DELTAS} deltas a round, ${ROUNDS} rounds, ${published} events published`);
console.log(`per delta: ${byteFigure} allocated, ${median(nanos).toFixed(1)} ns of CPU (median)`);
