/**
 * Many sessions streaming at once: one client per session creates it (`new_session`) and prompts it with a
 * long reply right away, all in parallel. With room for them all (`--max-sessions`), every run must end and
 * every client must get its whole reply, in order. With the default limit of 8 loaded sessions, the ones
 * beyond it must be refused with the limit's own error (a busy session is never unloaded), and the others
 * must complete.
 */
import { StressClient } from "../client.js";
import { DeltaLog } from "../delta-log.js";
import { rssMiB } from "../process-stats.js";
import { fmt, type ScenarioResult } from "../result.js";
import { startService } from "../service.js";

export interface ManySessionsOptions {
	sessions: number;
	deltas: number;
}

const LIMIT_MS = 180_000;

/** The message of the limit's refusal (src/agent/runtime-manager.ts). */
const LIMIT_REFUSAL = /All \d+ loaded sessions are busy/;

interface Round {
	complete: number;
	refused: number;
	problems: string[];
	seconds: number;
	rssBefore: number;
	rssPeak: number;
}

async function round(options: ManySessionsOptions, args: string[]): Promise<Round> {
	const service = await startService({ args });
	const clients: StressClient[] = [];
	try {
		const rssBefore = rssMiB(service.pid);
		let rssPeak = rssBefore;
		const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(service.pid))), 250);
		const started = performance.now();
		const runs = await Promise.all(
			Array.from({ length: options.sessions }, async (_, i) => {
				const client = await StressClient.connect(service.skiff.wsUrl);
				clients.push(client);
				const log = new DeltaLog(options.deltas + 16);
				let sessionId = "";
				client.onEvent = (event, at) => {
					if (event.sessionId === sessionId) log.add(event, at);
				};
				try {
					sessionId = (await client.ok({ type: "new_session" })).sessionId;
					await client.ok({ type: "prompt", sessionId, message: `BENCH ${options.deltas}` });
					const deadline = performance.now() + LIMIT_MS;
					while (!log.ended && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
					if (!log.ended) return `session ${i}: the run did not end`;
					if (log.chars !== options.deltas) return `session ${i}: ${log.chars} of ${options.deltas} characters`;
					if (log.outOfOrder > 0) return `session ${i}: events out of seq order`;
					return undefined;
				} catch (error) {
					return `session ${i}: ${error instanceof Error ? error.message : String(error)}`;
				}
			}),
		);
		const seconds = (performance.now() - started) / 1000;
		clearInterval(sampler);
		const refused = runs.filter((r) => r !== undefined && LIMIT_REFUSAL.test(r)).length;
		const problems = runs.filter((r): r is string => r !== undefined && !LIMIT_REFUSAL.test(r));
		return { complete: runs.filter((r) => r === undefined).length, refused, problems, seconds, rssBefore, rssPeak };
	} finally {
		for (const client of clients) client.terminate();
		await service.stop();
	}
}

export async function manySessions(options: ManySessionsOptions): Promise<ScenarioResult> {
	const roomy = await round(options, ["--max-sessions", String(options.sessions + 1)]);
	const limited = await round(options, []);
	const failures = [...roomy.problems, ...limited.problems.map((p) => `default limit: ${p}`)];
	if (roomy.complete !== options.sessions) failures.push(`${options.sessions - roomy.complete} sessions did not complete (${roomy.refused} refused)`);
	if (limited.complete + limited.refused !== options.sessions) failures.push("default limit: some sessions neither completed nor were refused");
	return {
		name: "concurrent sessions",
		tried: `${options.sessions} clients each create a session (new_session) and prompt it with a ${fmt(options.deltas)}-delta reply (fake BENCH ${options.deltas}) at once: with --max-sessions ${options.sessions + 1}, then with the default limit of 8 loaded sessions`,
		count: `${options.sessions} sessions × ${fmt(options.deltas)} deltas, twice`,
		failures,
		figure: `${roomy.complete} of ${options.sessions} complete with every delta in order; ${fmt((roomy.complete * options.deltas) / roomy.seconds)} deltas/s in all over ${fmt(roomy.seconds, 1)} s; RSS ${fmt(roomy.rssBefore, 1)} → peak ${fmt(roomy.rssPeak, 1)} MiB. Default limit: ${limited.complete} complete, ${limited.refused} refused with "All 8 loaded sessions are busy (limit 8; see --max-sessions)", nothing else failed`,
	};
}
