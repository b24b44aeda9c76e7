/**
 * The real listener with real collaboration rooms, in the test process, over a dispatcher of fake session
 * commands (get_state, get_messages, prompt, steer, abort), a real runtime of fake agents (any session id
 * resolves: see runtimeOfAnyId) and real event streams: events are published straight into a session's stream.
 * For the relay's tests, where the fake model would be slow.
 */
import { Type } from "typebox";
import type { SessionObserver } from "../../src/agent/types.js";
import { collabFeature } from "../../src/features/collab/index.js";
import { collabUpdated } from "../../src/features/collab/events.js";
import { CollabRooms } from "../../src/collab/rooms.js";
import { collabLinkOrigin } from "../../src/listener/advertised-origin.js";
import type { ListenerLimits } from "../../src/listener/limits.js";
import { type Listener, startListener } from "../../src/listener/server.js";
import { CommandRegistry, defineCommand, NoFields, NoResult } from "../../src/protocol/command.js";
import { streamCommands } from "../../src/protocol/commands/stream.js";
import { createDispatcher } from "../../src/protocol/dispatch.js";
import { ServiceDirectory } from "../../src/protocol/service-key.js";
import { EventStreams } from "../../src/protocol/event-streams.js";
import { runtimeOfAnyId } from "./fake-agent.js";

/** The primary session: the one commands address when they name none. Any other id names a session too. */
export const PRIMARY_SESSION = "primary-session";
/** Every session's folder, inside the fake home (paths in them must reach guests shortened). */
export const SESSION_CWD = "/home/tester/work/project";

export interface CollabHarness {
	readonly listener: Listener;
	readonly url: string;
	readonly wsUrl: string;
	readonly rooms: CollabRooms;
	readonly streams: EventStreams;
	readonly logs: string[];
	/** Messages of each session's transcript, as get_messages returns them. */
	readonly transcripts: Map<string, unknown[]>;
	/** The assistant message each session is streaming, as get_messages returns it (none when absent). */
	readonly streaming: Map<string, unknown>;
	/** Commands the fake sessions received: `{type, sessionId, message?}`. */
	readonly received: Array<{ type: string; sessionId: string; message?: string }>;
	/** Whether a session runs (get_state's isStreaming); steer needs one. */
	readonly running: Set<string>;
	publish(sessionId: string, event: { type: string; [key: string]: unknown }): void;
	close(): Promise<void>;
}

export async function startCollabHarness(options: { limits?: Partial<ListenerLimits>; maxRooms?: number; maxParticipants?: number; joinTimeoutMs?: number } = {}): Promise<CollabHarness> {
	let observer: SessionObserver | undefined;
	const streams = new EventStreams({
		observe: (o) => {
			observer = o;
			return () => (observer = undefined);
		},
	});
	const transcripts = new Map<string, unknown[]>();
	const streaming = new Map<string, unknown>();
	const received: CollabHarness["received"] = [];
	const running = new Set<string>();
	const { runtime } = await runtimeOfAnyId(PRIMARY_SESSION, SESSION_CWD);
	const fake = [
		defineCommand({
			name: "get_state",
			summary: "fake",
			params: NoFields,
			result: Type.Unknown(),
			handler: async (_p, context) => {
				const { id, handle } = await context.session();
				return {
					sessionId: id,
					sessionFile: `/home/tester/.skiff/agent/sessions/${id}.jsonl`,
					sessionName: `Work in ${handle.cwd}`,
					cwd: handle.cwd,
					model: { provider: "fake", id: "fake-model", name: "Fake", baseUrl: "http://10.0.0.5:8080/v1", headers: { authorization: "x" } },
					thinkingLevel: "off",
					isStreaming: running.has(id),
					isCompacting: false,
					messageCount: transcripts.get(id)?.length ?? 0,
					pendingMessageCount: 0,
				};
			},
		}),
		defineCommand({
			name: "get_messages",
			summary: "fake",
			params: NoFields,
			result: Type.Unknown(),
			handler: async (_p, context) => {
				const { id } = await context.session();
				return { messages: transcripts.get(id) ?? [], streaming: streaming.get(id), seq: streams.hub(id).seq };
			},
		}),
		...(["prompt", "steer"] as const).map((name) =>
			defineCommand({
				name,
				summary: "fake",
				params: Type.Object({ message: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
				result: NoResult,
				handler: async ({ message }, context) => {
					const { id } = await context.session();
					received.push({ type: name, sessionId: id, message });
				},
			}),
		),
		defineCommand({
			name: "abort",
			summary: "fake",
			params: NoFields,
			result: Type.Object({ dropped: Type.Unknown() }),
			handler: async (_p, context) => {
				const { id } = await context.session();
				received.push({ type: "abort", sessionId: id });
				return { dropped: { steering: ["secret text"], followUp: [] } };
			},
		}),
	];
	let listener: Listener | undefined;
	const rooms = new CollabRooms({
		linkOrigin: (baseUrl) => collabLinkOrigin(baseUrl, undefined, listener!.address),
		maxRooms: options.maxRooms,
		maxParticipants: options.maxParticipants,
	});
	rooms.onChange((change) => streams.hub(change.room.sessionId).publish(collabUpdated(change)));
	const services = new ServiceDirectory().provide(collabFeature.key, rooms);
	const dispatcher = createDispatcher(new CommandRegistry().register(...streamCommands, ...fake, ...collabFeature.commands!), { runtime, streams }, services);
	const logs: string[] = [];
	listener = await startListener({
		host: "127.0.0.1",
		port: 0,
		auth: { loopback: true },
		dispatcher,
		web: { kind: "embedded", html: "<!doctype html><title>test page</title>" },
		limits: options.limits,
		log: (line) => logs.push(line),
		collab: rooms,
		collabJoinTimeoutMs: options.joinTimeoutMs,
	});
	const url = `http://127.0.0.1:${listener.address.port}`;
	return {
		listener,
		url,
		wsUrl: `${url.replace(/^http/, "ws")}/ws`,
		rooms,
		streams,
		logs,
		transcripts,
		streaming,
		received,
		running,
		publish: (sessionId, event) => observer?.(sessionId, { kind: "event", event }),
		close: () => listener!.close(),
	};
}
