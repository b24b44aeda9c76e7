/**
 * Fan-out: many clients follow one session while it streams a long reply. Every client must get every
 * character in order (a client that falls behind gets merged deltas, never fewer characters), and the
 * spread (first to last client having the same delta) shows how evenly the service serves them.
 */
import { StressClient } from "../client.js";
import { DeltaLog, deltaSpreads } from "../delta-log.js";
import { rssMiB } from "../process-stats.js";
import { fmt, maxOf, pct, type ScenarioResult } from "../result.js";
import { startService } from "../service.js";

export interface FanOutOptions {
	clients: number;
	deltas: number;
}

const REPLY_LIMIT_MS = 180_000;

export async function fanOut(options: FanOutOptions): Promise<ScenarioResult> {
	const service = await startService();
	const failures: string[] = [];
	const clients: StressClient[] = [];
	try {
		const logs: DeltaLog[] = [];
		for (let i = 0; i < options.clients; i++) {
			const client = await StressClient.connect(service.skiff.wsUrl);
			const log = new DeltaLog(options.deltas + 16);
			client.onEvent = (event, at) => log.add(event, at);
			await client.ok({ type: "subscribe" });
			clients.push(client);
			logs.push(log);
		}
		const allEnded = new Promise<void>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`the reply did not reach every client within ${REPLY_LIMIT_MS / 1000} s`)), REPLY_LIMIT_MS);
			const check = setInterval(() => {
				if (logs.every((log) => log.ended)) {
					clearTimeout(timer);
					clearInterval(check);
					resolve();
				}
			}, 20);
		});
		const rssBefore = rssMiB(service.pid);
		let rssPeak = rssBefore;
		const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(service.pid))), 250);
		const started = performance.now();
		await clients[0]!.ok({ type: "prompt", message: `BENCH ${options.deltas}` });
		await allEnded;
		const elapsedS = (performance.now() - started) / 1000;
		clearInterval(sampler);

		let merged = 0;
		for (const [i, log] of logs.entries()) {
			if (log.chars !== options.deltas) failures.push(`client ${i} got ${log.chars} of ${options.deltas} characters`);
			if (log.outOfOrder > 0) failures.push(`client ${i} got ${log.outOfOrder} events out of seq order`);
			if (log.count < options.deltas) merged++;
		}
		const spreads = deltaSpreads(logs);
		const deliveries = logs.reduce((sum, log) => sum + log.count, 0);
		return {
			name: "fan-out",
			tried: `${options.clients} WebSocket clients follow one session while it streams a reply of ${fmt(options.deltas)} one-character deltas (fake BENCH ${options.deltas}); every client checked for every character, in seq order`,
			count: `${options.clients} clients × ${fmt(options.deltas)} deltas`,
			failures: failures.slice(0, 10),
			figure: `all ${options.clients} complete and in order: ${failures.length === 0 ? "yes" : "no"}; ${merged} clients got merged deltas (${fmt(deliveries)} delta events delivered in all); spread first→last client per delta p50 ${fmt(pct(spreads, 0.5), 1)} ms, p99 ${fmt(pct(spreads, 0.99), 1)} ms, max ${fmt(maxOf(spreads), 1)} ms; reply ${fmt(elapsedS, 1)} s to the last client; RSS ${fmt(rssBefore, 1)} → peak ${fmt(rssPeak, 1)} MiB`,
		};
	} finally {
		for (const client of clients) client.terminate();
		await service.stop();
	}
}
