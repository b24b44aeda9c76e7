/**
 * Adversarial redaction input: text of each redaction rule's worst shape (test/support/redaction-inputs.ts),
 * each led by a made-up credential, through three real request paths: a 150 KB prompt that a collaboration
 * guest follows, a 300 KB message that a side chat's peek_main reads, and a 300 KB memory entry learned.
 * Meanwhile a client in a process of its own pings back to back: no ping may wait for a held event loop (the
 * redactor once took 19 s on 300 KB), and no whole message the guest gets, no peek_main answer and no memory
 * entry stored may hold a credential. (Streamed deltas are redacted one by one; a credential split across
 * them is the streaming redactor's concern, not this scenario's.)
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { RawGuest } from "../../test/support/collab-guest.js";
import { ADVERSARIAL_SHAPES, adversarialText, SECRET_SAMPLES } from "../../test/support/redaction-inputs.js";
import { StressClient, type WireEvent } from "../client.js";
import { startPinger } from "../pinger.js";
import { fmt, maxOf, pct, type ScenarioResult } from "../result.js";
import { startService } from "../service.js";

const GUEST_PROMPT_CHARS = 150 * 1024;
const PEEK_MESSAGE_CHARS = 300 * 1024;
const LEARN_CHARS = 300 * 1024;
/** The end-to-end tests' bound on a ping (test/integration/redaction-freeze.test.ts): pings over it are counted. */
const PING_BUDGET_MS = 100;
/**
 * A ping over this is a failure: the event loop was held (the machine is shared, so a ping over 100 ms alone
 * may be another process's doing; the redactor's quadratic scans held it for seconds).
 */
const FREEZE_MS = 1_000;
const PATHS = ["guest", "peek_main", "learn"] as const;
const RUN_LIMIT_MS = 120_000;

export async function adversarialRedaction(): Promise<ScenarioResult> {
	const service = await startService();
	const failures: string[] = [];
	const host = await StressClient.connect(service.skiff.wsUrl);
	const waiters = new Set<(event: WireEvent) => void>();
	host.onEvent = (event) => {
		for (const waiter of [...waiters]) waiter(event);
	};
	/** The first event matching `match` from now on. */
	const next = (match: (event: WireEvent) => boolean, what: string) => {
		const waiting = new Promise<WireEvent>((resolve, reject) => {
			const timer = setTimeout(() => {
				waiters.delete(waiter);
				reject(new Error(`timed out waiting for ${what}`));
			}, RUN_LIMIT_MS);
			const waiter = (event: WireEvent) => {
				if (!match(event)) return;
				clearTimeout(timer);
				waiters.delete(waiter);
				resolve(event);
			};
			waiters.add(waiter);
		});
		waiting.catch(() => undefined); // a wait given up on (its step failed first) is not an unhandled rejection
		return waiting;
	};
	const turn = async (sessionId: string, message: string) => {
		const ended = next((e) => e.type === "agent_end" && e.sessionId === sessionId, "a run to end");
		await host.ok({ type: "prompt", sessionId, message }, RUN_LIMIT_MS);
		return ended;
	};
	let bytes = 0;
	let inputs = 0;
	let leaks = 0;
	const leak = (failure: string) => {
		leaks++;
		failures.push(failure);
	};
	/** When each path was under way (epoch ms, as the pinger's), to tell which held a ping. */
	const windows: Array<{ path: (typeof PATHS)[number]; from: number; to: number }> = [];
	const during = async <T>(path: (typeof PATHS)[number], step: () => Promise<T>): Promise<T> => {
		const from = performance.timeOrigin + performance.now();
		try {
			return await step();
		} finally {
			windows.push({ path, from, to: performance.timeOrigin + performance.now() });
		}
	};
	try {
		await turn((await host.ok({ type: "new_session" })).sessionId, "REPLY warm up"); // loads the provider first
		const pinger = await startPinger(service.skiff.wsUrl);
		for (const [index, shape] of ADVERSARIAL_SHAPES.entries()) {
			const sample = SECRET_SAMPLES[index % SECRET_SAMPLES.length]!;
			// "#" ends every rule's run: the credential is redacted as it would be alone.
			const text = (chars: number) => `${sample.text}\n#\n${adversarialText(shape, chars)}`;
			const label = `${shape.rule}, ${shape.name}`;
			try {
				// A guest follows a session while a 150 KB prompt goes through it.
				const guestSession = (await host.ok({ type: "new_session" })).sessionId;
				const room = await host.ok({ type: "collab_start", sessionId: guestSession });
				const guest = await RawGuest.join(room.viewLink);
				const from = guest.messages.length;
				await during("guest", async () => {
					await turn(guestSession, text(GUEST_PROMPT_CHARS));
					await guest.waitFor(() => guest.messages.slice(from).find((m) => m.type === "agent_end"), "the guest to see the run end", RUN_LIMIT_MS);
				});
				const whole = guest.messages.filter((m) => m.type === "message_start" || m.type === "message_end" || m.type === "collab_snapshot");
				if (JSON.stringify(whole).includes(sample.secret)) leak(`${label}: the guest was sent ${sample.text}`);
				guest.close();
				await host.ok({ type: "collab_stop", roomId: room.roomId });

				// peek_main reads a 300 KB message of the main conversation.
				const peekSession = (await host.ok({ type: "new_session" })).sessionId;
				await host.ok({ type: "side_chat_new", sessionId: peekSession, name: "peek" });
				await turn(peekSession, text(PEEK_MESSAGE_CHARS));
				const side = (type: string) => (e: WireEvent) => e.type === "side_chat_event" && e.sessionId === peekSession && e.event.type === type;
				const peeked = next(side("tool_execution_end"), "peek_main to answer");
				const sideEnded = next(side("agent_end"), "the side chat's run to end");
				const peek = await during("peek_main", async () => {
					await host.ok({ type: "side_chat_prompt", sessionId: peekSession, name: "peek", message: "CALL peek_main {}\nAFTER_TOOL peeked." });
					const answer = (await peeked).event;
					await sideEnded;
					return answer;
				});
				if (peek.isError) failures.push(`${label}: peek_main failed: ${JSON.stringify(peek.result).slice(0, 200)}`);
				if (JSON.stringify(peek.result).includes(sample.secret)) leak(`${label}: peek_main showed ${sample.text}`);
				await host.ok({ type: "side_chat_close", sessionId: peekSession, name: "peek" });

				// The memory tool learns a 300 KB entry.
				const learnSession = (await host.ok({ type: "new_session" })).sessionId;
				const learned = next((e) => e.type === "tool_execution_end" && e.sessionId === learnSession, "memory learn to answer");
				await during("learn", () => turn(learnSession, `CALL memory ${JSON.stringify({ op: "learn", content: text(LEARN_CHARS) })}\nAFTER_TOOL learned.`));
				if ((await learned).isError) failures.push(`${label}: memory learn failed`);
				inputs += 3;
				bytes += GUEST_PROMPT_CHARS + PEEK_MESSAGE_CHARS + LEARN_CHARS;
			} catch (error) {
				failures.push(`${label}: ${error instanceof Error ? error.message : String(error)}`);
			}
		}
		const samples = await pinger.stop();
		if (samples.failures > 0) failures.push(`${samples.failures} pings failed`);
		const held = samples.ms.filter((ms) => ms > FREEZE_MS).length;
		if (held > 0) failures.push(`${held} of ${samples.ms.length} pings took over ${FREEZE_MS} ms (max ${fmt(maxOf(samples.ms), 1)} ms)`);
		const slow = samples.ms.filter((ms) => ms > PING_BUDGET_MS).length;
		// Each path's pings: those sent while it was under way (the windows follow each other, as the pings do).
		const byPath = new Map(PATHS.map((path) => [path, [] as number[]]));
		for (let i = 0, w = 0; i < samples.ms.length; i++) {
			const at = samples.sentAt[i]!;
			while (w < windows.length && windows[w]!.to <= at) w++;
			const window = windows[w];
			if (window && at >= window.from) byPath.get(window.path)!.push(samples.ms[i]!);
		}
		const perPath = PATHS.map((path) => `${path} max ${fmt(maxOf(byPath.get(path)!), 1)} ms, p99 ${fmt(pct(byPath.get(path)!, 0.99), 1)} ms`);
		const stored = storedMemory(service.agentDir);
		for (const sample of SECRET_SAMPLES) if (stored.includes(sample.secret)) leak(`the memory store holds ${sample.text}`);
		return {
			name: "adversarial redaction input",
			tried: `text of each redaction rule's worst shapes (runs of its prefix, near misses, interleavings, the issue's "-eyJAAAAAAAA" run), each led by a made-up credential, as a ${GUEST_PROMPT_CHARS / 1024} KB prompt a collaboration guest follows, a ${PEEK_MESSAGE_CHARS / 1024} KB message peek_main reads and a ${LEARN_CHARS / 1024} KB memory learn; a client in a process of its own pings back to back`,
			count: `${ADVERSARIAL_SHAPES.length} shapes, ${inputs} inputs, ${fmt(bytes / 1024 / 1024, 1)} MiB; ${fmt(samples.ms.length)} pings`,
			failures: failures.slice(0, 10),
			figure: `ping max ${fmt(maxOf(samples.ms), 1)} ms, p99 ${fmt(pct(samples.ms, 0.99), 1)} ms, p50 ${fmt(pct(samples.ms, 0.5), 1)} ms, ${slow} over ${PING_BUDGET_MS} ms; while each path was under way: ${perPath.join("; ")}; credentials in what the guest was sent whole, peek_main's answers or the memory store: ${leaks}`,
		};
	} finally {
		host.terminate();
		await service.stop();
	}
}

/** Every local memory store's text under the agent directory. */
function storedMemory(agentDir: string): string {
	const root = join(agentDir, "memory");
	return readdirSync(root, { recursive: true, encoding: "utf8" })
		.filter((path) => path.endsWith("entries.jsonl"))
		.map((path) => readFileSync(join(root, path), "utf8"))
		.join("\n");
}
