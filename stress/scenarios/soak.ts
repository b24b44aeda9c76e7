/**
 * Soak: many cycles of connect, prompt, wait for the end of the run, disconnect. Resident memory and open
 * file descriptors of the service must stay flat (a leak per connection or per run shows as a slope).
 */
import { StressClient } from "../client.js";
import { openFds, rssMiB } from "../process-stats.js";
import { fmt, maxOf, type ScenarioResult } from "../result.js";
import { startService } from "../service.js";

export interface SoakOptions {
	cycles: number;
}

const SAMPLE_EVERY = 50;
/** A full garbage collection (over the inspector) before reading the heap, this often. */
const HEAP_EVERY = 250;
/** More descriptors than this at the end than at the start is a leak. */
const FD_SLACK = 10;
const SETTLE_MS = 3_000;

export async function soak(options: SoakOptions): Promise<ScenarioResult> {
	// A context window the soak never fills: an automatic compaction would refuse prompts while it runs.
	const service = await startService({ contextWindow: 10_000_000 });
	const failures: string[] = [];
	try {
		// One cycle first, so that lazily loaded code and first-use buffers are not counted as growth.
		const cycle = async (n: number) => {
			const client = await StressClient.connect(service.skiff.wsUrl);
			let ended = false;
			const end = new Promise<void>((resolve) => {
				client.onEvent = (event) => {
					if (event.type === "agent_end") {
						ended = true;
						resolve();
					}
				};
			});
			await client.ok({ type: "prompt", message: `REPLY soak answer ${n}\nsoak cycle ${n}` });
			await Promise.race([end, new Promise((resolve) => setTimeout(resolve, 30_000))]);
			if (!ended) failures.push(`cycle ${n}: no agent_end`);
			client.close();
			await client.closed;
		};
		await cycle(0);
		await new Promise((resolve) => setTimeout(resolve, 1_000));
		const rss = [rssMiB(service.pid)];
		const fds = [openFds(service.pid)];
		const heap = [await service.heapMiB()];
		const started = performance.now();
		for (let n = 1; n <= options.cycles && failures.length < 10; n++) {
			await cycle(n);
			if (n % HEAP_EVERY === 0) heap.push(await service.heapMiB());
			if (n % SAMPLE_EVERY === 0) {
				rss.push(rssMiB(service.pid));
				fds.push(openFds(service.pid));
			}
		}
		const elapsedS = (performance.now() - started) / 1000;
		await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
		rss.push(rssMiB(service.pid));
		fds.push(openFds(service.pid));
		const fdGrowth = fds.at(-1)! - fds[0]!;
		if (fdGrowth > FD_SLACK) failures.push(`open file descriptors grew from ${fds[0]} to ${fds.at(-1)}`);
		return {
			name: "soak",
			tried: `connect, prompt (short reply), wait for agent_end, disconnect, over and over on one session; RSS and open descriptors (/proc/PID/fd) sampled every ${SAMPLE_EVERY} cycles`,
			count: `${fmt(options.cycles)} cycles`,
			failures,
			figure: `RSS ${fmt(rss[0]!, 1)} MiB at the start, ${fmt(rss.at(-1)!, 1)} at the end (${SETTLE_MS / 1000} s after the last cycle, which ended with a full GC), max ${fmt(maxOf(rss), 1)}; JS heap after a full GC every ${HEAP_EVERY} cycles ${heap.map((h) => fmt(h, 1)).join(" → ")} MiB (the session itself grows by ${fmt(options.cycles * 2)} messages); open descriptors ${fds[0]} → ${fds.at(-1)}, max ${maxOf(fds)}; ${fmt(options.cycles / elapsedS, 1)} cycles/s`,
		};
	} finally {
		await service.stop();
	}
}
