/**
 * Slow consumers: clients that stop reading (a paused TCP socket) while a session streams a long reply. A
 * normal client's `ping` (sent back to back from a process of its own) must stay fast throughout; the service
 * must hold its queues within the caps (cutting off the clients furthest behind with 1008) and give the memory
 * back once they are cut or have caught up; a paused client that survives and resumes must get the whole text.
 *
 * The criterion run streams at a pace (the fake model waits 1 ms after each delta: about 900 deltas a second,
 * still far faster than a real model). Two more runs stream a reply of 200,000 one-character deltas as fast as
 * loopback allows, with and without paused clients (issue 21's goal 3, also bench/slow-consumers.ts): the ping
 * must stay within its budget throughout, and resident memory must come back within 50 MiB of where it was
 * before the reply, 10 s after the reply ended.
 */
import { StressClient } from "../client.js";
import { DeltaLog } from "../delta-log.js";
import { startPinger } from "../pinger.js";
import { rssMiB } from "../process-stats.js";
import { fmt, maxOf, pct, type ScenarioResult } from "../result.js";
import { startService } from "../service.js";

export interface SlowConsumerOptions {
	paused: number;
}

/**
 * The paced reply: 10,000 deltas of 400 characters, 4 MB of text. A client that has read none of it holds about
 * three copies in its queue (the merged deltas, then text_end and message_end, which carry the whole text):
 * under the 16 MiB per-client cap, but thirty of them are far over the 64 MiB budget for all clients.
 */
const PACED_DELTAS = 10_000;
const PACED_DELTA_CHARS = 400;
/** The full-speed reply of issue 21: 200,000 one-character deltas. */
export const FULL_SPEED_DELTAS = 200_000;
export const PING_BUDGET_MS = 100;
/** Resident memory 10 s after the full-speed reply must be within this of what it was before it. */
export const RSS_RETURN_MIB = 50;
const LIMIT_MS = 180_000;
/** Paced run: time after the paused clients closed before memory is read again. */
const SETTLE_MS = 5_000;
/** Full-speed runs: time after the reply ended (at the reading client) before memory is read again. */
export const RETURN_AFTER_MS = 10_000;

export interface RunOptions {
	paused: number;
	deltas: number;
	deltaChars: number;
	/** The fake model waits 1 ms after each delta. */
	paced: boolean;
	/** Resident memory is read again this long after the reply ended; else SETTLE_MS after the paused clients closed. */
	returnAfterMs?: number;
}

export interface Run {
	pings: number[];
	/** Pings sent before the reply's message_end reached the reading client. */
	whileStreaming: number[];
	cut: Map<string, number>;
	resumed: number;
	rssBefore: number;
	rssPeak: number;
	rssAfter: number;
	heapBefore: number;
	heapAfter: number;
	seconds: number;
	failures: string[];
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One reply with `paused` clients that stop reading; see RunOptions. */
export async function slowConsumerRun({ paused, deltas, deltaChars, paced, returnAfterMs }: RunOptions): Promise<Run> {
	const service = await startService();
	const failures: string[] = [];
	const clients: StressClient[] = [];
	try {
		const driver = await StressClient.connect(service.skiff.wsUrl);
		clients.push(driver);
		const driverLog = new DeltaLog(1024);
		let messageEndAt = Number.POSITIVE_INFINITY;
		driver.onEvent = (event, at) => {
			driverLog.add(event, at);
			if (event.type === "message_end" && event.message?.role === "assistant") messageEndAt = performance.timeOrigin + at;
		};
		await driver.ok({ type: "subscribe" });
		await driver.ok({ type: "prompt", message: "REPLY warm up" });
		while (!driverLog.ended) await wait(20);
		const warmUpChars = driverLog.chars;

		const slow: Array<{ client: StressClient; log: DeltaLog; closed?: { code: number; reason: string } }> = [];
		for (let i = 0; i < paused; i++) {
			const client = await StressClient.connect(service.skiff.wsUrl);
			const log = new DeltaLog(1024);
			client.onEvent = (event, at) => log.add(event, at);
			await client.ok({ type: "subscribe" });
			const entry: (typeof slow)[number] = { client, log };
			void client.closed.then((closed) => (entry.closed = closed));
			client.setReading(false);
			slow.push(entry);
			clients.push(client);
		}
		await wait(1_000);
		// Resident memory as the process holds it, read before the inspector forces a collection for the heap figure.
		const rssBefore = rssMiB(service.pid);
		const heapBefore = await service.heapMiB();
		let rssPeak = rssBefore;
		const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(service.pid))), 100);
		const pinger = await startPinger(service.skiff.wsUrl);

		const started = performance.now();
		const deadline = started + LIMIT_MS;
		driverLog.ended = false;
		messageEndAt = Number.POSITIVE_INFINITY;
		await driver.ok({ type: "prompt", message: `BENCH ${deltas} ${deltaChars}${paced ? "\nSLOW 1" : ""}` });
		while (!driverLog.ended && performance.now() < deadline) await wait(5);
		if (!driverLog.ended) failures.push("the reply did not end in time");
		const endedAt = performance.now();
		const seconds = (endedAt - started) / 1000;
		// Every paused client reads again: one the service cut off learns it now (1008, or 1006 when its
		// connection was destroyed 2 s after the close frame it did not read); a survivor must get the whole text.
		for (const entry of slow) entry.client.setReading(true);
		while (slow.some((p) => !p.closed && !p.log.ended) && performance.now() < deadline) await wait(20);
		const samples = await pinger.stop();
		if (samples.failures > 0) failures.push(`${samples.failures} pings failed`);

		const expected = deltas * deltaChars;
		if (driverLog.chars !== expected + warmUpChars) failures.push(`the reading client got ${fmt(driverLog.chars)} characters`);
		const cut = new Map<string, number>();
		let resumed = 0;
		for (const [i, entry] of slow.entries()) {
			if (entry.log.outOfOrder > 0) failures.push(`paused client ${i} got events out of seq order`);
			if (entry.closed) {
				const key = `${entry.closed.code}${entry.closed.reason ? ` "${entry.closed.reason}"` : ""}`;
				cut.set(key, (cut.get(key) ?? 0) + 1);
				if (entry.closed.code !== 1008 && entry.closed.code !== 1006) failures.push(`paused client ${i} closed with ${key}`);
			} else {
				resumed++;
				if (entry.log.chars !== expected) failures.push(`resumed client ${i} got ${fmt(entry.log.chars)} of ${fmt(expected)} characters`);
			}
		}
		for (const entry of slow) entry.client.close();
		if (returnAfterMs === undefined) await wait(SETTLE_MS);
		else await wait(Math.max(0, endedAt + returnAfterMs - performance.now()));
		clearInterval(sampler);
		const rssAfter = rssMiB(service.pid);
		const heapAfter = await service.heapMiB();
		const whileStreaming = samples.ms.filter((_, i) => samples.sentAt[i]! < messageEndAt);
		return { pings: samples.ms, whileStreaming, cut, resumed, rssBefore, rssPeak, rssAfter, heapBefore, heapAfter, seconds, failures };
	} finally {
		for (const client of clients) client.terminate();
		await service.stop();
	}
}

const latency = (samples: number[]) => `max ${fmt(maxOf(samples), 1)} ms, p99 ${fmt(pct(samples, 0.99), 1)} ms, p50 ${fmt(pct(samples, 0.5), 1)} ms`;

export async function slowConsumers(options: SlowConsumerOptions): Promise<ScenarioResult> {
	const paced = await slowConsumerRun({ paused: options.paused, deltas: PACED_DELTAS, deltaChars: PACED_DELTA_CHARS, paced: true });
	const full = { deltas: FULL_SPEED_DELTAS, deltaChars: 1, paced: false, returnAfterMs: RETURN_AFTER_MS };
	const fastAlone = await slowConsumerRun({ ...full, paused: 0 });
	const fastPaused = await slowConsumerRun({ ...full, paused: options.paused });
	const failures = [...paced.failures, ...fastAlone.failures.map((f) => `full speed, alone: ${f}`), ...fastPaused.failures.map((f) => `full speed: ${f}`)];
	const slow = paced.pings.filter((ms) => ms > PING_BUDGET_MS).length;
	if (slow > 0) failures.push(`${slow} of ${paced.pings.length} pings took over ${PING_BUDGET_MS} ms (paced stream)`);
	const slowFast = fastPaused.pings.filter((ms) => ms > PING_BUDGET_MS).length;
	if (slowFast > 0) failures.push(`${slowFast} of ${fastPaused.pings.length} pings took over ${PING_BUDGET_MS} ms (full speed, ${options.paused} paused)`);
	if (fastPaused.rssAfter - fastPaused.rssBefore > RSS_RETURN_MIB) {
		failures.push(`full speed: RSS ${fmt(fastPaused.rssAfter, 1)} MiB ${RETURN_AFTER_MS / 1000} s after the reply, over ${RSS_RETURN_MIB} MiB above ${fmt(fastPaused.rssBefore, 1)} before it`);
	}
	const cuts = [...paced.cut].map(([how, n]) => `${n} × ${how}`).join(", ") || "none";
	return {
		name: "slow consumers",
		tried: `${options.paused} clients stop reading (paused TCP sockets) while a session streams ${fmt(PACED_DELTAS)} deltas of ${PACED_DELTA_CHARS} characters (${fmt((PACED_DELTAS * PACED_DELTA_CHARS) / 1e6, 0)} MB) at a pace of 1 ms between deltas; a normal client in a process of its own pings back to back; all paused clients read again after the reply. Then ${fmt(FULL_SPEED_DELTAS)} one-character deltas at full loopback speed, alone and with the paused clients (memory read ${RETURN_AFTER_MS / 1000} s after the reply)`,
		count: `${options.paused} paused clients; ${fmt(paced.pings.length)} pings (paced run), ${fmt(fastPaused.pings.length)} (full speed, paused)`,
		failures,
		figure: `paced (${fmt(paced.seconds, 1)} s): ping ${latency(paced.pings)}; ${paced.resumed} resumed with the whole text, cut off: ${cuts}; RSS ${fmt(paced.rssBefore, 1)} MiB before, peak ${fmt(paced.rssPeak, 1)}, ${fmt(paced.rssAfter, 1)} after (JS heap after a full GC ${fmt(paced.heapBefore, 1)} → ${fmt(paced.heapAfter, 1)} MiB). Full speed, ${fmt(FULL_SPEED_DELTAS)} deltas: alone (${fmt(fastAlone.seconds, 1)} s) ping ${latency(fastAlone.pings)}; with ${options.paused} paused (${fmt(fastPaused.seconds, 1)} s) ping ${latency(fastPaused.pings)}, ${fastPaused.resumed} resumed whole; RSS ${fmt(fastPaused.rssBefore, 1)} MiB before, peak ${fmt(fastPaused.rssPeak, 1)}, ${fmt(fastPaused.rssAfter, 1)} ${RETURN_AFTER_MS / 1000} s after the reply`,
	};
}
