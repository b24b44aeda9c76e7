/**
 * Slow consumers: clients that stop reading (a paused TCP socket) while a session streams a long reply. A
 * normal client's `ping` (sent back to back from a process of its own) must stay fast throughout; the service
 * must hold its queues within the caps (cutting off the clients furthest behind with 1008) and give the memory
 * back once they are cut or have caught up; a paused client that survives and resumes must get the whole text.
 *
 * The criterion run streams at a pace (the fake model waits 1 ms after each delta: about 900 deltas a second,
 * still far faster than a real model). Two more runs stream the same reply as fast as loopback allows, with
 * and without paused clients: they show what slow clients add when the service is already saturated.
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
 * A reply of 10,000 deltas of 400 characters: 4 MB of text. A client that has read none of it holds about
 * three copies in its queue (the merged deltas, then text_end and message_end, which carry the whole text):
 * under the 16 MiB per-client cap, but thirty of them are far over the 64 MiB budget for all clients.
 */
const DELTAS = 10_000;
const DELTA_CHARS = 400;
const PING_BUDGET_MS = 100;
const LIMIT_MS = 180_000;
const SETTLE_MS = 5_000;

interface Run {
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

async function runOnce(paused: number, paced: boolean): Promise<Run> {
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
		const heapBefore = await service.heapMiB();
		const rssBefore = rssMiB(service.pid);
		let rssPeak = rssBefore;
		const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(service.pid))), 100);
		const pinger = await startPinger(service.skiff.wsUrl);

		const started = performance.now();
		const deadline = started + LIMIT_MS;
		driverLog.ended = false;
		messageEndAt = Number.POSITIVE_INFINITY;
		await driver.ok({ type: "prompt", message: `BENCH ${DELTAS} ${DELTA_CHARS}${paced ? "\nSLOW 1" : ""}` });
		while (!driverLog.ended && performance.now() < deadline) await wait(20);
		if (!driverLog.ended) failures.push("the reply did not end in time");
		const seconds = (performance.now() - started) / 1000;
		// Every paused client reads again: one the service cut off learns it now (1008, or 1006 when its
		// connection was destroyed 2 s after the close frame it did not read); a survivor must get the whole text.
		for (const entry of slow) entry.client.setReading(true);
		while (slow.some((p) => !p.closed && !p.log.ended) && performance.now() < deadline) await wait(20);
		const samples = await pinger.stop();
		if (samples.failures > 0) failures.push(`${samples.failures} pings failed`);

		const expected = DELTAS * DELTA_CHARS;
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
		await wait(SETTLE_MS);
		clearInterval(sampler);
		const heapAfter = await service.heapMiB();
		const rssAfter = rssMiB(service.pid);
		const whileStreaming = samples.ms.filter((_, i) => samples.sentAt[i]! < messageEndAt);
		return { pings: samples.ms, whileStreaming, cut, resumed, rssBefore, rssPeak, rssAfter, heapBefore, heapAfter, seconds, failures };
	} finally {
		for (const client of clients) client.terminate();
		await service.stop();
	}
}

const latency = (samples: number[]) => `max ${fmt(maxOf(samples), 1)} ms, p99 ${fmt(pct(samples, 0.99), 1)} ms, p50 ${fmt(pct(samples, 0.5), 1)} ms`;

export async function slowConsumers(options: SlowConsumerOptions): Promise<ScenarioResult> {
	const paced = await runOnce(options.paused, true);
	const fastAlone = await runOnce(0, false);
	const fastPaused = await runOnce(options.paused, false);
	const failures = [...paced.failures, ...fastAlone.failures.map((f) => `full speed, alone: ${f}`), ...fastPaused.failures.map((f) => `full speed: ${f}`)];
	const slow = paced.pings.filter((ms) => ms > PING_BUDGET_MS).length;
	if (slow > 0) failures.push(`${slow} of ${paced.pings.length} pings took over ${PING_BUDGET_MS} ms (paced stream)`);
	const cuts = [...paced.cut].map(([how, n]) => `${n} × ${how}`).join(", ") || "none";
	return {
		name: "slow consumers",
		tried: `${options.paused} clients stop reading (paused TCP sockets) while a session streams ${fmt(DELTAS)} deltas of ${DELTA_CHARS} characters (${fmt((DELTAS * DELTA_CHARS) / 1e6, 0)} MB); a normal client in a process of its own pings back to back; all paused clients read again after the reply. Paced stream (1 ms between deltas), then the same at full loopback speed alone and with the paused clients`,
		count: `${options.paused} paused clients; ${fmt(paced.pings.length)} pings (paced run)`,
		failures,
		figure: `paced (${fmt(paced.seconds, 1)} s): ping ${latency(paced.pings)}; ${paced.resumed} resumed with the whole text, cut off: ${cuts}; RSS ${fmt(paced.rssBefore, 1)} MiB before, peak ${fmt(paced.rssPeak, 1)}, ${fmt(paced.rssAfter, 1)} after (JS heap after a full GC ${fmt(paced.heapBefore, 1)} → ${fmt(paced.heapAfter, 1)} MiB). Full speed (${fmt(fastAlone.seconds, 1)} s), ping while streaming: alone ${latency(fastAlone.whileStreaming)}; with ${options.paused} paused ${latency(fastPaused.whileStreaming)} (${fastPaused.resumed} resumed whole)`,
	};
}
