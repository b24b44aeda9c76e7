/** What a command handler gets: the runtime, the event streams, the addressed session, and the client it answers. */
import type { LoadedSession, RuntimeManager } from "../agent/runtime-manager.js";
import type { AttachmentStore } from "./attachment-store.js";
import type { EventStreams } from "./event-streams.js";
import type { ServiceKey } from "./service-key.js";

/** The outcome of `subscribe`: where the stream stands and whether the client must reload its snapshot. */
export interface SubscribeResult {
	sessionId: string;
	/** The seq of the newest event published so far; later events follow live. */
	seq: number;
	/** How many missed events were re-sent before this response. */
	replayed: number;
	/** True when missed events are gone (or the service restarted): reload with get_messages/get_state. */
	resync: boolean;
}

/** The client side of a command: how its events reach it. */
export interface ClientLink {
	/**
	 * How the client is connected: a WebSocket, POST /rpc, or standard input and output (`--mode rpc`: the
	 * operator's own process, as trusted as the command line, like pi's RPC mode).
	 */
	readonly transport: "ws" | "rpc" | "stdio";
	/** Starts sending this session's events to the client, from now on (no-op without an event stream). */
	follow(sessionId: string): void;
	/**
	 * Makes this session the one the client's commands address when they name none (`--mode rpc`, as in pi:
	 * lifecycle commands switch the current session). Absent on links where the primary stays the default.
	 */
	adopt?(sessionId: string): void;
	/** The session this client's commands address when they name none (undefined: the primary). */
	readonly defaultSessionId?: string;
	/** Re-sends events after `sinceSeq` (when still kept), then follows. See docs/protocol.md. */
	subscribe(sessionId: string, sinceSeq: number | undefined, epoch: string | undefined): SubscribeResult;
	/**
	 * Resolves once what was sent to the client has left the service (nothing waits in its queue), or at once
	 * where nothing queues. A command whose answer is large (an image) waits for it before building the next,
	 * so a client asking for many at once holds one in the service, not all of them in its queue.
	 */
	drained?(): Promise<void>;
}

/** A client with an event stream (a WebSocket): its link, and how to stop its deliveries when it goes. */
export interface EventClient extends ClientLink {
	close(): void;
}

/** The services commands run against. */
export interface ProtocolServices {
	readonly runtime: RuntimeManager;
	readonly streams: EventStreams;
	/** Images uploaded ahead of their message (POST /attachments); absent where nothing takes uploads. */
	readonly attachments?: AttachmentStore;
}

export interface CommandContext extends ProtocolServices {
	/** The envelope's `sessionId`, if any. */
	readonly sessionId: string | undefined;
	readonly client: ClientLink;
	/** The addressed session (the primary when no sessionId was given); the client now follows its events. */
	session(): Promise<LoadedSession>;
	/** A feature's service (see service-key.ts); throws `unavailable`, with the key's reason, where it does not run. */
	service<T>(key: ServiceKey<T>): T;
}
