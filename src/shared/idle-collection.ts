/**
 * Gives memory back after a burst. V8 collects its old generation when allocation calls for it, so a process
 * that goes quiet after a long reply keeps its heap at the burst's peak: a 200,000-delta reply (its events are
 * kept in the replay window long enough to reach the old generation, then dropped) left skiff at 235 MiB
 * resident 30 s later, from 83 before it (issue 21). When the event loop has been all but idle for a few
 * seconds and V8's heap has grown well beyond what the last full collection left, one full collection runs
 * (103 MiB 5 s after that reply). It holds the event loop for its duration (two full collections: 40 to 100
 * ms on the shared 2-core machine), which is why it waits for quiet and runs once per such growth.
 *
 * Start-up leaves garbage of its own behind (loading the service, then the provider warm-up's SDKs), in pages V8
 * keeps: about 4 MiB of idle memory. So once start-up is over (the warm-up done), the first quiet moment gets
 * one such collection too (StartUpCollection), whatever the heap's growth.
 */
import type { Performance } from "node:perf_hooks";
import { getHeapStatistics } from "node:v8";

/** How often the loop's idleness and the heap are looked at. */
export const IDLE_CHECK_INTERVAL_MS = 1_000;
/** How often, once start-up is over, the loop is looked at until it is quiet for start-up's collection. */
export const START_UP_CHECK_INTERVAL_MS = 250;
/** An interval counts as quiet when the event loop was busy for less than this share of it. */
export const QUIET_UTILIZATION = 0.05;
/** Quiet intervals in a row before a collection. */
export const QUIET_CHECKS = 3;
/**
 * Growth of V8's heap (committed) over what the last collection left that is worth a collection. With deltas
 * merged at the source, the slow consumers' 200,000-delta reply grows it by less than 64 MiB, and at 64 the
 * service kept 52 MiB more resident 10 s after it than before (issue 21's goal: 50); at 32, 10 MiB.
 */
export const HEAP_GROWTH_BYTES = 32 * 1024 * 1024;

/** What the collector looks at and does (the process's own, or a test's). */
export interface IdleCollectionProbes {
	/** The event loop's utilization since the previous call (0 to 1). */
	utilization(): number;
	/** V8's heap size, committed (bytes). */
	heapBytes(): number;
	/** Runs a full collection. */
	collect(): void;
}

/** One look, every interval: collects when the loop has been quiet long enough after the heap grew enough. */
export class IdleCollector {
	private baseline: number;
	private quiet = 0;

	constructor(private readonly probes: IdleCollectionProbes) {
		this.baseline = probes.heapBytes();
	}

	/** Returns whether it collected. */
	check(): boolean {
		this.quiet = this.probes.utilization() < QUIET_UTILIZATION ? this.quiet + 1 : 0;
		const heap = this.probes.heapBytes();
		if (heap < this.baseline) this.baseline = heap; // V8 gave memory back by itself
		if (this.quiet < QUIET_CHECKS || heap < this.baseline + HEAP_GROWTH_BYTES) return false;
		this.probes.collect();
		this.baseline = this.probes.heapBytes();
		this.quiet = 0;
		return true;
	}
}

/**
 * Start-up's one collection: at the first check that finds the loop quiet (a client busy as the service comes up is
 * not held up by it). Returns whether it collected; after that it never collects again.
 */
export class StartUpCollection {
	private done = false;

	constructor(private readonly probes: Pick<IdleCollectionProbes, "utilization" | "collect">) {}

	check(): boolean {
		if (this.done || this.probes.utilization() >= QUIET_UTILIZATION) return false;
		this.done = true;
		this.probes.collect();
		return true;
	}
}

/** The event loop's utilization (0 to 1) since the previous call of the function it returns. */
function loopUtilization(performance: Performance): () => number {
	let last = performance.eventLoopUtilization();
	return () => {
		const now = performance.eventLoopUtilization();
		const { utilization } = performance.eventLoopUtilization(now, last);
		last = now;
		return utilization;
	};
}

/**
 * A full collection that also gives V8's freed pages back to the system (the inspector's collectGarbage, which
 * is V8's low-memory notification: a plain full collection keeps freed pages pooled for reuse, and left skiff
 * 100 MiB above its level before the reply instead of about 45). The session is the process's own inspector,
 * in process: nothing listens on a port. The inspector module, like perf_hooks, is loaded once start-up is
 * over, not with the service: a few milliseconds less before the first answer.
 */
async function lowMemoryCollection(): Promise<(() => void) | undefined> {
	try {
		const { Session } = await import("node:inspector");
		const session = new Session();
		session.connect();
		return () => session.post("HeapProfiler.collectGarbage", () => undefined);
	} catch {
		return undefined;
	}
}

/**
 * Once `startUpOver` settles (nothing of this runs before: the first answers do not wait for it), looks every
 * START_UP_CHECK_INTERVAL_MS until start-up's collection ran, and every IDLE_CHECK_INTERVAL_MS for good; returns
 * the function that stops both.
 */
export function startIdleCollection(startUpOver: Promise<unknown>): () => void {
	let stopped = false;
	const timers: NodeJS.Timeout[] = [];
	const every = (ms: number, check: () => void) => {
		const timer = setInterval(check, ms);
		timer.unref();
		timers.push(timer);
		return timer;
	};
	const start = async () => {
		if (stopped) return; // stopped while starting: no inspector session is opened
		const collect = await lowMemoryCollection();
		if (stopped || !collect) return;
		const { performance } = await import("node:perf_hooks");
		const startUp = new StartUpCollection({ utilization: loopUtilization(performance), collect });
		const startUpTimer = every(START_UP_CHECK_INTERVAL_MS, () => {
			if (startUp.check()) clearInterval(startUpTimer);
		});
		const collector = new IdleCollector({ utilization: loopUtilization(performance), heapBytes: () => getHeapStatistics().total_heap_size, collect });
		every(IDLE_CHECK_INTERVAL_MS, () => collector.check());
	};
	startUpOver.then(start, start);
	return () => {
		stopped = true;
		for (const timer of timers) clearInterval(timer);
	};
}
