/**
 * Fan-out: many clients follow one session while it streams a long reply. Every client must get every
 * character in order (a client that falls behind gets merged deltas, never fewer characters), and the last
 * client must have the whole reply within the goal of issue 21 (4 s for 100 clients and 20,000 deltas; also
 * bench/fan-out.ts). The followers live in processes of their own (follower-process.ts), so that reading and
 * checking two million frames is not what the figure measures; the one that prompts lives here.
 */
import { StressClient } from "../client.js";
import { DeltaLog } from "../delta-log.js";
import { type FollowerResult, startFollowers } from "../followers.js";
import { rssMiB } from "../process-stats.js";
import { fmt, type ScenarioResult } from "../result.js";
import { startService } from "../service.js";

export interface FanOutOptions {
	clients: number;
	deltas: number;
	/** Processes the followers are spread over (default 4). */
	processes?: number;
}

/** The goal: prompt → the last client has the reply's end. */
export const FAN_OUT_GOAL_S = 4;
const REPLY_LIMIT_MS = 180_000;

export interface FanOutRun {
	/** Prompt sent → the first and the last client had the reply's end (s). */
	firstS: number;
	lastS: number;
	/** Clients whose seqs skipped: they fell behind and got the deltas waiting for them merged. */
	merged: number;
	/** Delta events delivered to all clients together. */
	deliveries: number;
	/**
	 * Delta events the service published for the reply (the service merges the deltas the model sent within one
	 * turn): what a client that kept up received; undefined when every client fell behind.
	 */
	publishedEvents: number | undefined;
	/** Clients that had the reply's end with every character, in seq order. */
	complete: number;
	rssBefore: number;
	rssPeak: number;
	failures: string[];
}

const epochNow = () => performance.timeOrigin + performance.now();

export async function fanOutRun({ clients, deltas, processes = 4 }: FanOutOptions): Promise<FanOutRun> {
	const service = await startService();
	const failures: string[] = [];
	let driver: StressClient | undefined;
	let followers: Awaited<ReturnType<typeof startFollowers>> | undefined;
	try {
		driver = await StressClient.connect(service.skiff.wsUrl);
		const driverLog = new DeltaLog(deltas + 16);
		let driverEnd: number | undefined;
		driver.onEvent = (event, at) => {
			driverLog.add(event, at);
			if (event.type === "agent_end") driverEnd ??= performance.timeOrigin + at;
		};
		await driver.ok({ type: "subscribe" });
		followers = await startFollowers(service.skiff.wsUrl, clients - 1, Math.min(processes, clients - 1));
		const rssBefore = rssMiB(service.pid);
		let rssPeak = rssBefore;
		const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(service.pid))), 250);
		const sentAt = epochNow();
		await driver.ok({ type: "prompt", message: `BENCH ${deltas}` });
		const results = await followers.results(REPLY_LIMIT_MS);
		while (driverEnd === undefined && epochNow() < sentAt + REPLY_LIMIT_MS) await new Promise((resolve) => setTimeout(resolve, 10));
		clearInterval(sampler);
		const all: FollowerResult[] = [{ chars: driverLog.chars, count: driverLog.count, outOfOrder: driverLog.outOfOrder, skipped: driverLog.skipped, endedAt: driverEnd }, ...results];
		for (const [i, result] of all.entries()) {
			if (result.endedAt === undefined) failures.push(`client ${i} never had the reply's end`);
			if (result.chars !== deltas) failures.push(`client ${i} got ${result.chars} of ${deltas} characters`);
			if (result.outOfOrder > 0) failures.push(`client ${i} got ${result.outOfOrder} events out of seq order`);
		}
		const ends = all.map((r) => r.endedAt ?? Number.POSITIVE_INFINITY);
		const complete = all.filter((r) => r.endedAt !== undefined && r.chars === deltas && r.outOfOrder === 0).length;
		return {
			firstS: (Math.min(...ends) - sentAt) / 1000,
			lastS: (Math.max(...ends) - sentAt) / 1000,
			merged: all.filter((r) => r.skipped > 0).length,
			deliveries: all.reduce((sum, r) => sum + r.count, 0),
			publishedEvents: all.find((r) => r.skipped === 0)?.count,
			complete,
			rssBefore,
			rssPeak,
			failures,
		};
	} finally {
		followers?.stop();
		driver?.terminate();
		await service.stop();
	}
}

export async function fanOut(options: FanOutOptions): Promise<ScenarioResult> {
	const run = await fanOutRun(options);
	const failures = [...run.failures];
	if (run.lastS > FAN_OUT_GOAL_S) failures.push(`the last client had the reply ${fmt(run.lastS, 1)} s after the prompt (goal ${FAN_OUT_GOAL_S} s)`);
	return {
		name: "fan-out",
		tried: `${options.clients} WebSocket clients (one prompting, the others in ${options.processes ?? 4} processes of their own) follow one session while it streams a reply of ${fmt(options.deltas)} one-character deltas (fake BENCH ${options.deltas}); every client checked for every character, in seq order`,
		count: `${options.clients} clients × ${fmt(options.deltas)} deltas`,
		failures: failures.slice(0, 10),
		figure: `all ${options.clients} complete and in order: ${run.failures.length === 0 ? "yes" : "no"}; ${run.merged} clients fell behind and got merged deltas (${fmt(run.deliveries)} delta events delivered in all; the service published the reply as ${run.publishedEvents === undefined ? "an unknown number of" : fmt(run.publishedEvents)} delta events, merged at its source); prompt → reply's end at the first client ${fmt(run.firstS, 2)} s, at the last ${fmt(run.lastS, 2)} s (goal ${FAN_OUT_GOAL_S} s); RSS ${fmt(run.rssBefore, 1)} → peak ${fmt(run.rssPeak, 1)} MiB`,
	};
}
