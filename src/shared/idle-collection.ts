/**
 * Gives memory back after a burst. V8 collects its old generation when allocation calls for it, so a process
 * that goes quiet after a long reply keeps its heap at the burst's peak: a 200,000-delta reply (its events are
 * kept in the replay window long enough to reach the old generation, then dropped) left skiff at 235 MiB
 * resident 30 s later, from 83 before it (issue 21). When the event loop has been all but idle for a few
 * seconds and V8's heap has grown well beyond what the last full collection left, one full collection runs
 * (103 MiB 5 s after that reply). It holds the event loop for its duration (two full collections: 40 to 100
 * ms on the shared 2-core machine), which is why it waits for quiet and runs once per such growth.
 */
import { Session } from "node:inspector";
import { performance } from "node:perf_hooks";
import { getHeapStatistics } from "node:v8";

/** How often the loop's idleness and the heap are looked at. */
export const IDLE_CHECK_INTERVAL_MS = 1_000;
/** An interval counts as quiet when the event loop was busy for less than this share of it. */
export const QUIET_UTILIZATION = 0.05;
/** Quiet intervals in a row before a collection. */
export const QUIET_CHECKS = 3;
/** Growth of V8's heap (committed) over what the last collection left that is worth a collection. */
export const HEAP_GROWTH_BYTES = 64 * 1024 * 1024;

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
 * A full collection that also gives V8's freed pages back to the system (the inspector's collectGarbage, which
 * is V8's low-memory notification: a plain full collection keeps freed pages pooled for reuse, and left skiff
 * 100 MiB above its level before the reply instead of about 45). The session is the process's own inspector,
 * in process: nothing listens on a port.
 */
function lowMemoryCollection(): (() => void) | undefined {
	try {
		const session = new Session();
		session.connect();
		return () => session.post("HeapProfiler.collectGarbage", () => undefined);
	} catch {
		return undefined;
	}
}

/** Starts looking every IDLE_CHECK_INTERVAL_MS; returns the function that stops it. */
export function startIdleCollection(): () => void {
	const collect = lowMemoryCollection();
	if (!collect) return () => undefined;
	let last = performance.eventLoopUtilization();
	const collector = new IdleCollector({
		utilization: () => {
			const now = performance.eventLoopUtilization();
			const { utilization } = performance.eventLoopUtilization(now, last);
			last = now;
			return utilization;
		},
		heapBytes: () => getHeapStatistics().total_heap_size,
		collect,
	});
	const timer = setInterval(() => collector.check(), IDLE_CHECK_INTERVAL_MS);
	timer.unref();
	return () => clearInterval(timer);
}
