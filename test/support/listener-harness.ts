/**
 * The real listener in the test process, over a real dispatcher, event streams and runtime, but no agent (fake
 * sessions, any id resolving: see runtimeOfAnyId): events are published straight into a session's stream (each
 * delta its own event: the service's merging of one turn's deltas is off here), and
 * limits can be made small. For tests of the transport's behaviour under load and abuse, where the fake model
 * would be slow and a child process opaque.
 */
import type { SessionObserver } from "../../src/agent/types.js";
import type { AuthPolicy } from "../../src/listener/auth.js";
import type { ListenerLimits } from "../../src/listener/limits.js";
import { type Listener, startListener } from "../../src/listener/server.js";
import { CommandRegistry, defineCommand, NoFields, NoResult } from "../../src/protocol/command.js";
import { streamCommands } from "../../src/protocol/commands/stream.js";
import { createDispatcher } from "../../src/protocol/dispatch.js";
import { EventStreams } from "../../src/protocol/event-streams.js";
import { runtimeOfAnyId } from "./fake-agent.js";

/** The primary session: the one every command addresses when it names none. Any other id names a session too. */
export const PRIMARY_SESSION = "primary";

/** A command that never answers, to fill a socket's commands in flight. */
const hang = defineCommand({
	name: "hang",
	summary: "Never answers (tests only).",
	params: NoFields,
	result: NoResult,
	handler: () => new Promise<never>(() => undefined),
});

export interface ListenerHarness {
	readonly listener: Listener;
	readonly url: string;
	readonly wsUrl: string;
	readonly streams: EventStreams;
	/** Lines the listener logged. */
	readonly logs: string[];
	/** Publishes an event on a session's stream, as the runtime would. */
	publish(sessionId: string, event: { type: string; [key: string]: unknown }): void;
	/** Publishes one streaming text delta. */
	publishDelta(sessionId: string, text: string, contentIndex?: number): void;
	/** Resolves with the first logged line (from now on or already logged) that matches. */
	waitForLog(pattern: RegExp): Promise<string>;
	close(): Promise<void>;
}

export interface HarnessOptions {
	limits?: Partial<ListenerLimits>;
	auth?: AuthPolicy;
	now?: () => number;
	host?: string;
}

export async function startHarness(options: HarnessOptions = {}): Promise<ListenerHarness> {
	let observer: SessionObserver | undefined;
	// One event per published delta: these tests drive the transport (its batching, its merging for a client
	// behind, its caps) event by event, as a model streaming slower than the service reads would.
	const streams = new EventStreams(
		{
			observe: (o) => {
				observer = o;
				return () => (observer = undefined);
			},
		},
		{ mergeDeltas: false },
	);
	const { runtime } = await runtimeOfAnyId(PRIMARY_SESSION);
	const dispatcher = createDispatcher(new CommandRegistry().register(...streamCommands, hang), { runtime, streams });
	const logs: string[] = [];
	const logWaiters = new Set<() => void>();
	const listener = await startListener({
		host: options.host ?? "127.0.0.1",
		port: 0,
		auth: options.auth ?? { loopback: true },
		dispatcher,
		web: { kind: "embedded", html: "<!doctype html><title>test</title>" },
		limits: options.limits,
		now: options.now,
		log: (line) => {
			logs.push(line);
			for (const wake of [...logWaiters]) wake();
		},
	});
	const url = `http://127.0.0.1:${listener.address.port}`;
	const publish = (sessionId: string, event: { type: string; [key: string]: unknown }) =>
		observer?.(sessionId, { kind: "event", event });
	return {
		listener,
		url,
		wsUrl: `${url.replace(/^http/, "ws")}/ws`,
		streams,
		logs,
		publish,
		publishDelta: (sessionId, text, contentIndex = 0) =>
			publish(sessionId, { type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex, delta: text } }),
		waitForLog: (pattern) =>
			new Promise((resolve) => {
				const check = () => {
					const line = logs.find((l) => pattern.test(l));
					if (line === undefined) return;
					logWaiters.delete(check);
					resolve(line);
				};
				logWaiters.add(check);
				check();
			}),
		close: () => listener.close(),
	};
}
