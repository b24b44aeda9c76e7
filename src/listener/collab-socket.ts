/**
 * One collaboration guest's socket (docs/collab.md): a plaintext hello, then only encrypted binary frames.
 * The guest's first frame must be `collab_join` (proof that it holds the key, not just its hash); then it
 * gets a snapshot of the shared session and that session's live events, as guests may see them
 * (src/collab/public-view.ts). A control guest's prompt, steer and abort go to the shared session through the
 * dispatcher like any client's; a view guest's commands get an encrypted refusal. Any frame that does not
 * open (replayed, reordered, cut, altered, too large) closes the socket. Everything outbound goes through an
 * OutboundQueue, so a slow guest only falls behind (and is cut off beyond its caps), never slows anyone.
 */
import { randomBytes } from "node:crypto";
import { homedir } from "node:os";
import type { RawData, WebSocket } from "ws";
import { CollabChannel, FrameRejected } from "../collab/channel.js";
import { PublicView } from "../collab/public-view.js";
import type { CollabRoom, Participant } from "../collab/rooms.js";
import { snapshotText } from "../collab/snapshot.js";
import { StreamedText } from "../collab/streamed-text.js";
import type { WireEvent } from "../protocol/coalesce.js";
import type { EventClient } from "../protocol/context.js";
import type { Dispatcher } from "../protocol/dispatch.js";
import { echo } from "../protocol/echo.js";
import type { ResponseEnvelope } from "../protocol/envelope.js";
import type { PublishedEvent } from "../protocol/event-hub.js";
import {
	CLOSE_SESSION_UNAVAILABLE,
	COLLAB_PROTOCOL,
	type CollabHello,
	type CollabRole,
	encodeBase64Url,
	FRAME_HEADER_BYTES,
	FRAME_TAG_BYTES,
	GUEST_COMMAND_TYPES,
	type GuestResponse,
	INVALID_FRAME_REASON,
	MAX_GUEST_FRAME_BYTES,
	MAX_HOST_FRAME_BYTES,
	CONNECTION_NONCE_BYTES,
} from "../shared/collab-wire.js";
import type { ListenerLimits } from "./limits.js";
import { type Backlog, type OutboundBudget, OutboundQueue } from "./outbound-queue.js";
import { CLOSE_POLICY_VIOLATION, CLOSE_UNSUPPORTED_DATA, NO_PONG, NOT_READING } from "./websocket.js";

/** Commands one guest may have in flight; more are refused (`limit`) at once. */
export const MAX_GUEST_COMMANDS_IN_FLIGHT = 4;
/** Time a guest has, after the hello, to send its join frame; then it is closed with 1008. */
export const COLLAB_JOIN_TIMEOUT_MS = 10_000;
/** Largest plaintext of a frame to a guest. */
export const MAX_HOST_PLAINTEXT_BYTES = MAX_HOST_FRAME_BYTES - FRAME_HEADER_BYTES - FRAME_TAG_BYTES;
/**
 * A waiting delta stops absorbing others at this many characters, so even text that JSON escapes six bytes
 * to a character stays inside one frame.
 */
const MAX_MERGED_CHARS = Math.floor(MAX_HOST_PLAINTEXT_BYTES / 8);
/** The shorter string cap of an event too large for a frame with the usual one. */
const FALLBACK_STRING_CHARS = 1024;

/** The close reasons of a guest socket. */
export const JOIN_TIMED_OUT = "collaboration join timed out";
export const JOIN_EXPECTED = "the first collaboration frame must be collab_join";
export const BINARY_REQUIRED = "collaboration frames must be binary (encrypted)";
export const SESSION_UNAVAILABLE = "the shared session is not available";

/** The refusals a guest may get for a command. */
export const VIEW_ONLY_REFUSAL = "This is a view-only link: its guests can watch but not send commands";
export const GUEST_COMMANDS_REFUSAL = "Guests can send only prompt, steer and abort";

/** Fields a guest's command may have. */
const GUEST_COMMAND_FIELDS = new Set(["type", "id", "message"]);

/**
 * Events guests see, by the event published for the host: every guest of a session shares the projection
 * (it depends only on the event and the session's folder), and it goes with the event.
 */
const projections = new WeakMap<PublishedEvent, PublishedEvent | null>();

export interface CollabSocketOptions {
	limits: ListenerLimits;
	/** The outbound budget shared by every WebSocket of the listener. */
	budget: OutboundBudget;
	log: (line: string) => void;
	/** `address:port` of the guest, for log lines. */
	peer: string;
	dispatcher: Dispatcher;
	joinTimeoutMs?: number;
}

/** The events that change a transcript other than by appending: the guest then gets a new snapshot. */
function needsSnapshot(event: WireEvent): boolean {
	if (event.type === "session_reloaded") return true;
	if (event.type === "tree_changed") return event.reload === true;
	if (event.type === "compaction_end") return event.result !== undefined;
	return false;
}

export class CollabConnection implements Participant {
	private readonly channel: CollabChannel;
	private readonly queue: OutboundQueue;
	private view = new PublicView({ home: homedir() });
	/** What of the text streaming now this guest may see (its streams start at its snapshot). */
	private readonly streamed = new StreamedText();
	private events: EventClient | undefined;
	private hasJoined = false;
	private closing = false;
	private awaitingPong = false;
	private readonly joinTimer: NodeJS.Timeout;
	/** The seq the guest's transcript stands at: events up to it are in its snapshot. */
	private lastSeq = 0;
	/** Events held while a snapshot is taken (undefined when none is). */
	private held: PublishedEvent[] | undefined;
	private snapshotAgain = false;
	private inFlight = 0;

	constructor(
		private readonly socket: WebSocket,
		private readonly room: CollabRoom,
		readonly role: CollabRole,
		clientNonce: Uint8Array,
		private readonly options: CollabSocketOptions,
	) {
		const serverNonce = randomBytes(CONNECTION_NONCE_BYTES);
		this.channel = CollabChannel.host(room.keyOf(role), room.roomId, clientNonce, serverNonce, MAX_GUEST_FRAME_BYTES);
		const { limits } = options;
		this.queue = new OutboundQueue(
			{ write: (text, written) => this.sendSealed(text, written) },
			{
				maxMessages: limits.clientQueueMessages,
				maxBytes: limits.clientQueueBytes,
				highWaterBytes: limits.writeHighWaterBytes,
				maxMergedBytes: MAX_MERGED_CHARS,
			},
			options.budget,
			(backlog) => this.cutOff(NOT_READING, backlog),
		);
		const hello: CollabHello = {
			type: "hello",
			protocol: COLLAB_PROTOCOL,
			roomId: room.roomId,
			role,
			serverNonce: encodeBase64Url(serverNonce),
			maxHostFrameBytes: MAX_HOST_FRAME_BYTES,
			maxGuestFrameBytes: MAX_GUEST_FRAME_BYTES,
		};
		socket.send(JSON.stringify(hello));
		this.joinTimer = setTimeout(() => this.end(CLOSE_POLICY_VIOLATION, JOIN_TIMED_OUT), options.joinTimeoutMs ?? COLLAB_JOIN_TIMEOUT_MS);
		this.joinTimer.unref();
		socket.on("message", (data, isBinary) => this.receive(data, isBinary));
		socket.on("pong", () => (this.awaitingPong = false));
		socket.on("close", () => this.dispose());
		socket.on("error", () => this.dispose());
	}

	get joined(): boolean {
		return this.hasJoined;
	}

	/** Closes the guest (its room stopped, or the service shuts down). */
	close(code: number, reason: string): void {
		this.end(code, reason);
	}

	/** One heartbeat: a guest that has not answered the previous ping is cut off, the others are pinged. */
	heartbeat(): void {
		if (this.closing || this.socket.readyState !== this.socket.OPEN) return;
		if (this.awaitingPong) return this.cutOff(NO_PONG);
		this.awaitingPong = true;
		this.socket.ping();
	}

	private receive(data: RawData, isBinary: boolean): void {
		if (this.closing) return;
		if (!isBinary) return this.end(CLOSE_UNSUPPORTED_DATA, BINARY_REQUIRED);
		let text: string;
		try {
			text = this.channel.open(toBuffer(data)).toString("utf8");
		} catch (error) {
			const fault = error instanceof FrameRejected ? error.fault : "unreadable";
			this.options.log(`skiff: closed collaboration guest ${this.options.peer} of room ${this.room.roomId} with 1008: ${INVALID_FRAME_REASON} (${fault})`);
			return this.end(CLOSE_POLICY_VIOLATION, INVALID_FRAME_REASON);
		}
		if (this.hasJoined) this.command(text);
		else this.join(text);
	}

	private join(text: string): void {
		let value: unknown;
		try {
			value = JSON.parse(text);
		} catch {
			value = undefined;
		}
		if ((value as { type?: unknown } | undefined)?.type !== "collab_join") return this.end(CLOSE_POLICY_VIOLATION, JOIN_EXPECTED);
		clearTimeout(this.joinTimer);
		this.hasJoined = true;
		this.room.joined(this);
		this.options.log(`skiff: collaboration guest ${this.options.peer} joined room ${this.room.roomId} (${this.role})`);
		this.events = this.options.dispatcher.eventClient((published) => this.onEvent(published));
		this.events.follow(this.room.sessionId);
		this.takeSnapshot();
	}

	/** Starts a snapshot; should reading the session fail outright, the guest is told it is not available. */
	private takeSnapshot(): void {
		this.snapshot().catch(() => this.end(CLOSE_SESSION_UNAVAILABLE, SESSION_UNAVAILABLE));
	}

	/**
	 * Sends the guest a snapshot of the session. Events published meanwhile are held, then those newer than
	 * the snapshot are sent. A snapshot asked for while one is taken is taken right after it.
	 */
	private async snapshot(): Promise<void> {
		if (this.held) {
			this.snapshotAgain = true;
			return;
		}
		this.held = [];
		do {
			this.snapshotAgain = false;
			const { dispatcher } = this.options;
			const sessionId = this.room.sessionId;
			const [state, transcript] = await Promise.all([
				dispatcher.dispatchValue({ type: "get_state", sessionId }, this.events!),
				dispatcher.dispatchValue({ type: "get_messages", sessionId }, this.events!),
			]);
			if (this.closing) return;
			if (!state.success || !transcript.success) {
				this.options.log(`skiff: closed collaboration guest ${this.options.peer} of room ${this.room.roomId}: ${SESSION_UNAVAILABLE}`);
				return this.end(CLOSE_SESSION_UNAVAILABLE, SESSION_UNAVAILABLE);
			}
			const stateData = state.data as Record<string, unknown>;
			const { messages, streaming, seq } = transcript.data as { messages: unknown[]; streaming?: unknown; seq: number };
			this.view = new PublicView({ cwd: typeof stateData.cwd === "string" ? stateData.cwd : undefined, home: homedir() });
			this.streamed.reset();
			const shownStreaming = streaming === undefined ? undefined : this.streamed.seed(streaming);
			this.queue.push(snapshotText(this.view, { sessionId, state: stateData, messages, streaming: shownStreaming, seq }, MAX_HOST_PLAINTEXT_BYTES));
			this.lastSeq = Math.max(this.lastSeq, seq);
		} while (this.snapshotAgain);
		const held = this.held;
		this.held = undefined;
		for (const published of held) this.deliver(published);
	}

	private onEvent(published: PublishedEvent): void {
		if (this.closing) return;
		if (this.held) {
			this.held.push(published);
			if (this.held.length > this.options.limits.clientQueueMessages) this.cutOff(NOT_READING, { messages: this.held.length, bytes: 0 });
			return;
		}
		this.deliver(published);
	}

	private deliver(published: PublishedEvent): void {
		if (published.seq <= this.lastSeq) return;
		this.lastSeq = published.seq;
		// Streamed text depends on what this guest saw of its stream; everything else is shared by the guests.
		const event = this.streamed.event(published.event);
		const shown = event === published.event ? this.project(published) : event && this.publicEvent(event, published.seq);
		if (shown) this.queue.push(shown);
		if (needsSnapshot(published.event)) this.takeSnapshot();
	}

	/** The event as guests see it (shared by the session's guests), or undefined when they do not see it. */
	private project(published: PublishedEvent): PublishedEvent | undefined {
		const cached = projections.get(published);
		if (cached !== undefined) return cached ?? undefined;
		const shown = this.publicEvent(published.event, published.seq);
		projections.set(published, shown ?? null);
		return shown;
	}

	/** An event as guests see it, within a frame, or undefined when they do not see it. */
	private publicEvent(source: WireEvent, seq: number): PublishedEvent | undefined {
		let event = this.view.event(source);
		let json = event && JSON.stringify(event);
		if (event && json && json.length * 3 > MAX_HOST_PLAINTEXT_BYTES && Buffer.byteLength(json) > MAX_HOST_PLAINTEXT_BYTES) {
			event = new PublicView({ home: homedir(), maxStringChars: FALLBACK_STRING_CHARS }).event(source);
			json = event && JSON.stringify(event);
			if (event && json && Buffer.byteLength(json) > MAX_HOST_PLAINTEXT_BYTES) json = undefined;
		}
		return event && json ? { seq, event, json } : event ? omitted(source) : undefined;
	}

	private command(text: string): void {
		const { dispatcher } = this.options;
		let value: Record<string, unknown>;
		try {
			value = JSON.parse(text) as Record<string, unknown>;
		} catch {
			return this.respond(dispatcher.refuse(text, "A guest's frame must hold one JSON command", "parse_error"));
		}
		if (typeof value !== "object" || value === null || Array.isArray(value)) {
			return this.respond(dispatcher.refuse(text, "A command must be a JSON object with a string field `type`", "parse_error"));
		}
		if (!GUEST_COMMAND_TYPES.includes(value.type as never)) return this.respond(dispatcher.refuse(text, GUEST_COMMANDS_REFUSAL, "forbidden"));
		if (this.role !== "control") return this.respond(dispatcher.refuse(text, VIEW_ONLY_REFUSAL, "forbidden"));
		const extra = Object.keys(value).find((key) => !GUEST_COMMAND_FIELDS.has(key));
		if (extra !== undefined) return this.respond(dispatcher.refuse(text, `Invalid command: unknown field \`${echo(extra)}\``, "invalid_command"));
		if (this.inFlight >= MAX_GUEST_COMMANDS_IN_FLIGHT) {
			return this.respond(dispatcher.refuse(text, `Too many commands in flight from this guest (limit ${MAX_GUEST_COMMANDS_IN_FLIGHT})`, "limit"));
		}
		this.inFlight++;
		dispatcher
			.dispatchValue({ ...value, sessionId: this.room.sessionId }, this.events!)
			.then((response) => this.respond(response))
			.catch(() => undefined) // dispatch turns every failure into a response; this only guards respond()
			.finally(() => this.inFlight--);
	}

	/** Sends a response as guests get it: without `data`, its error as guests may see it. */
	private respond(response: ResponseEnvelope): void {
		const answer: GuestResponse = { type: "response", id: response.id, command: response.command, success: response.success };
		if (response.error !== undefined) answer.error = this.view.text(response.error);
		if (response.code !== undefined) answer.code = response.code;
		this.queue.push(JSON.stringify(answer));
	}

	/** The queue's sink: seals each message into the next frame (in queue order, so sequence numbers rise with it). */
	private sendSealed(text: string, written: (error?: Error | null) => void): void {
		if (this.closing) return written(new Error("closed"));
		let plaintext = Buffer.from(text, "utf8");
		// Only a merged run of deltas can outgrow a frame after the checks above; it is sent as a gap the guest can see.
		if (plaintext.length > MAX_HOST_PLAINTEXT_BYTES) plaintext = Buffer.from(omittedText(text), "utf8");
		this.socket.send(this.channel.seal(plaintext), { binary: true }, written);
	}

	/** Cuts the guest off with 1008 (behind beyond its caps, or silent), like a /ws client. */
	private cutOff(reason: string, backlog?: Backlog): void {
		if (this.closing) return;
		const behind = backlog ? ` (${backlog.messages} messages, ${backlog.bytes} bytes waiting)` : "";
		this.options.log(`skiff: cut off collaboration guest ${this.options.peer} of room ${this.room.roomId} with 1008: ${reason}${behind}`);
		this.end(CLOSE_POLICY_VIOLATION, reason);
	}

	/** Closes the socket with a code and reason; the connection is destroyed if the guest does not answer the close. */
	private end(code: number, reason: string): void {
		if (this.closing) return;
		this.closing = true;
		clearTimeout(this.joinTimer);
		this.queue.close();
		this.events?.close();
		this.socket.close(code, reason);
		const grace = setTimeout(() => this.socket.terminate(), this.options.limits.cutOffGraceMs);
		grace.unref();
		this.socket.once("close", () => clearTimeout(grace));
	}

	private dispose(): void {
		this.closing = true;
		clearTimeout(this.joinTimer);
		this.queue.close();
		this.events?.close();
		this.room.leave(this);
	}
}

/** A stand-in for an event too large for a frame even with short strings: guests see that something was left out. */
function omitted(event: WireEvent): PublishedEvent {
	const stand = { type: event.type, sessionId: event.sessionId, seq: event.seq, omitted: true } as WireEvent;
	return { seq: event.seq, event: stand, json: JSON.stringify(stand) };
}

function omittedText(text: string): string {
	try {
		const value = JSON.parse(text) as WireEvent;
		if (typeof value.seq === "number") return omitted(value).json;
	} catch {
		// not JSON: cannot happen for what the relay queues
	}
	return JSON.stringify({ type: "omitted" });
}

function toBuffer(data: RawData): Buffer {
	if (Buffer.isBuffer(data)) return data;
	if (Array.isArray(data)) return Buffer.concat(data);
	return Buffer.from(data);
}
