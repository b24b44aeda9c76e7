/**
 * A collaboration guest's connection, apart from any rendering (docs/collab.md): it authenticates with the
 * capability of its link's key (never the key), reads the host's plaintext hello, derives the connection's
 * keys, proves it holds the key with an encrypted `collab_join`, then decrypts the snapshot and the live
 * events of the shared session, and encrypts a control guest's prompt, steer and abort. A view can subscribe
 * to its state, snapshots and events; it reconnects (new keys every time) after an unexpected disconnect.
 */
import { backoffDelay, type Message, type SkiffEvent } from "../../../src/client/index.js";
import {
	CLOSE_ROOM_FULL,
	CLOSE_ROOM_STOPPED,
	CLOSE_SESSION_UNAVAILABLE,
	COLLAB_PROTOCOL,
	type CollabHello,
	type CollabRole,
	type CollabSnapshot,
	CONNECTION_NONCE_BYTES,
	decodeBase64Url,
	type GuestCommandType,
	type GuestResponse,
	guestSubprotocol,
	INVALID_FRAME_REASON,
	FRAME_HEADER_BYTES,
	FRAME_TAG_BYTES,
	MAX_GUEST_FRAME_BYTES,
	MAX_HOST_FRAME_BYTES,
	utf8,
} from "../../../src/shared/collab-wire.js";
import { capabilityOf, GuestChannel, subtleCrypto } from "./crypto.js";
import { type GuestLink, socketUrlOf } from "./guest-link.js";

/**
 * - `connecting`: the first attempt is under way;
 * - `connected`: joined, the snapshot is in, events follow (a control guest may send commands);
 * - `reconnecting`: the connection dropped and a new one is tried (with backoff);
 * - `ended`: the host stopped sharing, the shared session is gone, or the guest left: nothing more comes;
 * - `failed`: the guest could not join (an invalid or ended link, a full room, no WebCrypto, no host).
 */
export type GuestStatus = "connecting" | "connected" | "reconnecting" | "ended" | "failed";

export interface GuestState {
	status: GuestStatus;
	role: CollabRole;
	roomId: string;
	/** Why the guest is not connected, in a sentence a person can act on (never a key). */
	detail?: string;
	/** Connected with the control link: prompt, steer and abort are accepted. */
	canCommand: boolean;
}

/** The snapshot of the shared session: the transcript to show, at event `seq`. */
export type GuestSnapshot = CollabSnapshot<Message>;

/** The little of the WebSocket API the guest needs, met by the browser's WebSocket and by the `ws` package. */
export interface GuestSocketLike {
	binaryType: string;
	readonly readyState: number;
	send(data: string | Uint8Array<ArrayBuffer>): void;
	close(code?: number, reason?: string): void;
	// Set, never called, by the guest: `never` lets each implementation's event type fit.
	onopen: ((event: never) => void) | null;
	onmessage: ((event: never) => void) | null;
	onerror: ((event: never) => void) | null;
	onclose: ((event: never) => void) | null;
}

export type GuestSocketConstructor = new (url: string, protocols: string[]) => GuestSocketLike;

export interface GuestConnectionOptions {
	/** The WebSocket class: the browser's by default; `ws` in Node. */
	WebSocket?: GuestSocketConstructor;
	/** The wait before reconnect attempt `attempt` (0 first); the control client's backoff by default. */
	retryDelay?: (attempt: number) => number;
	/** Failed attempts in a row after which the guest gives up (`failed`). */
	maxRetries?: number;
}

/** Reconnect attempts in a row that may fail before the guest gives up: about two minutes with the backoff. */
export const MAX_GUEST_RETRIES = 10;

export const DETAIL_NO_WEBCRYPTO =
	"This browser offers no WebCrypto here: open the link over https (or on localhost). The session is never shown unencrypted.";
export const DETAIL_NOT_JOINED = "Could not join: the link is not valid, the room has ended, or the host cannot be reached.";
export const DETAIL_STOPPED = "The host stopped sharing this session.";
export const DETAIL_FULL = "The room is full: try again later.";
export const DETAIL_SESSION_GONE = "The shared session is no longer available.";
export const DETAIL_LEFT = "You left the session.";
export const DETAIL_LOST = "Connection lost: reconnecting…";
export const DETAIL_PROTOCOL = "The host answered something this page cannot read: reconnecting…";

type Listener<T> = (value: T) => void;

interface PendingCommand {
	resolve: (response: GuestResponse) => void;
	reject: (error: Error) => void;
}

/** One attempt: a socket, its channel once the hello is in, and whether the host let it join. */
interface Attempt {
	socket: GuestSocketLike;
	channel?: GuestChannel;
	/** The largest frame the host takes (from its hello). */
	maxGuestFrameBytes: number;
	/** Messages are handled one after another, in arrival order (decryption is asynchronous). */
	work: Promise<void>;
	opened: boolean;
	joined: boolean;
	/** Set when the guest closed it on purpose (an unreadable frame, leaving): its close is not a surprise. */
	closedBy?: "guest";
}

export class GuestConnection {
	private current: GuestState;
	private attempt: Attempt | undefined;
	private retries = 0;
	private everJoined = false;
	private retryTimer: ReturnType<typeof setTimeout> | undefined;
	private nextId = 1;
	private readonly pending = new Map<string, PendingCommand>();
	private readonly stateListeners = new Set<Listener<GuestState>>();
	private readonly snapshotListeners = new Set<Listener<GuestSnapshot>>();
	private readonly eventListeners = new Set<Listener<SkiffEvent>>();
	private key: Uint8Array | undefined;

	constructor(
		private readonly link: GuestLink,
		private readonly options: GuestConnectionOptions = {},
	) {
		this.key = link.key;
		this.current = { status: "connecting", role: link.role, roomId: link.roomId, canCommand: false };
	}

	get state(): GuestState {
		return this.current;
	}

	/** Calls `listener` on every change of state; returns how to stop. */
	onState(listener: Listener<GuestState>): () => void {
		this.stateListeners.add(listener);
		return () => this.stateListeners.delete(listener);
	}

	/** Calls `listener` with every snapshot: replace the transcript with it (events after its seq follow). */
	onSnapshot(listener: Listener<GuestSnapshot>): () => void {
		this.snapshotListeners.add(listener);
		return () => this.snapshotListeners.delete(listener);
	}

	/** Calls `listener` with every event of the shared session, in seq order (apply those after the snapshot's seq). */
	onEvent(listener: Listener<SkiffEvent>): () => void {
		this.eventListeners.add(listener);
		return () => this.eventListeners.delete(listener);
	}

	/** Connects (once; later connections are made by the guest itself). */
	start(): void {
		if (this.attempt || this.retryTimer !== undefined || this.isOver()) return;
		void this.connect();
	}

	prompt(message: string): Promise<GuestResponse> {
		return this.command("prompt", message);
	}

	steer(message: string): Promise<GuestResponse> {
		return this.command("steer", message);
	}

	abort(): Promise<GuestResponse> {
		return this.command("abort");
	}

	/** Leaves for good: closes the connection and forgets the key. */
	leave(): void {
		this.finish("ended", DETAIL_LEFT);
	}

	private isOver(): boolean {
		return this.current.status === "ended" || this.current.status === "failed";
	}

	/**
	 * Sends a command; resolves with the host's response (a refusal for a view guest: `forbidden`). Rejects when
	 * not connected, when the message is too long for a frame, or when the connection drops before the response.
	 */
	private command(type: GuestCommandType, message?: string): Promise<GuestResponse> {
		const attempt = this.attempt;
		if (this.current.status !== "connected" || !attempt?.channel) return Promise.reject(new Error(`Not connected (${this.current.status})`));
		const id = `g${this.nextId++}`;
		const payload = utf8(JSON.stringify(message === undefined ? { type, id } : { type, id, message }));
		const limit = attempt.maxGuestFrameBytes - FRAME_HEADER_BYTES - FRAME_TAG_BYTES;
		if (payload.length > limit) return Promise.reject(new Error(`The message is too long to send (at most about ${limit} bytes)`));
		return new Promise<GuestResponse>((resolve, reject) => {
			this.pending.set(id, { resolve, reject });
			attempt.channel!.seal(payload).then(
				(frame) => {
					if (this.attempt === attempt) attempt.socket.send(frame);
				},
				(error: unknown) => {
					this.pending.delete(id);
					reject(error instanceof Error ? error : new Error(String(error)));
				},
			);
		});
	}

	private async connect(): Promise<void> {
		const subtle = subtleCrypto();
		const WebSocketClass = this.options.WebSocket ?? (globalThis.WebSocket as unknown as GuestSocketConstructor | undefined);
		if (!subtle || !globalThis.crypto?.getRandomValues) return this.finish("failed", DETAIL_NO_WEBCRYPTO);
		if (!WebSocketClass || !this.key) return this.finish("failed", DETAIL_NOT_JOINED);
		const clientNonce = globalThis.crypto.getRandomValues(new Uint8Array(CONNECTION_NONCE_BYTES));
		let protocol: string;
		try {
			protocol = guestSubprotocol(await capabilityOf(this.key), clientNonce);
		} catch {
			return this.finish("failed", DETAIL_NO_WEBCRYPTO);
		}
		if (this.isOver()) return;
		const socket = new WebSocketClass(socketUrlOf(this.link), [protocol]);
		socket.binaryType = "arraybuffer";
		const attempt: Attempt = { socket, maxGuestFrameBytes: MAX_GUEST_FRAME_BYTES, work: Promise.resolve(), opened: false, joined: false };
		this.attempt = attempt;
		socket.onopen = (() => (attempt.opened = true)) as never;
		socket.onmessage = ((event: { data: unknown }) => {
			attempt.work = attempt.work.then(() => this.receive(attempt, clientNonce, event.data)).catch(() => this.protocolError(attempt));
		}) as never;
		socket.onclose = ((event: { code: number }) => this.closed(attempt, event.code)) as never;
		socket.onerror = (() => undefined) as never; // a close always follows
	}

	private async receive(attempt: Attempt, clientNonce: Uint8Array, data: unknown): Promise<void> {
		if (this.attempt !== attempt || attempt.closedBy) return;
		if (!attempt.channel) {
			if (typeof data !== "string") throw new Error("expected the hello");
			const hello = JSON.parse(data) as CollabHello;
			const serverNonce = typeof hello.serverNonce === "string" ? decodeBase64Url(hello.serverNonce, CONNECTION_NONCE_BYTES) : undefined;
			// The role and room are the link's own: a hello that says otherwise is not this room's.
			if (hello.type !== "hello" || hello.protocol !== COLLAB_PROTOCOL || hello.roomId !== this.link.roomId || hello.role !== this.link.role || !serverNonce) {
				throw new Error("unexpected hello");
			}
			const maxFrame = Math.min(MAX_HOST_FRAME_BYTES, Number(hello.maxHostFrameBytes) || MAX_HOST_FRAME_BYTES);
			attempt.maxGuestFrameBytes = Math.min(MAX_GUEST_FRAME_BYTES, Number(hello.maxGuestFrameBytes) || MAX_GUEST_FRAME_BYTES);
			attempt.channel = await GuestChannel.create(this.key!, this.link.roomId, clientNonce, serverNonce, maxFrame);
			const join = await attempt.channel.seal(utf8(JSON.stringify({ type: "collab_join" })));
			if (this.attempt === attempt && !attempt.closedBy) attempt.socket.send(join);
			return;
		}
		if (!(data instanceof ArrayBuffer)) throw new Error("expected a binary frame");
		const plaintext = await attempt.channel.open(new Uint8Array(data));
		if (this.attempt !== attempt || attempt.closedBy) return;
		const message = JSON.parse(new TextDecoder().decode(plaintext)) as { type?: unknown; id?: unknown; seq?: unknown };
		if (!attempt.joined) {
			if (message.type !== "collab_snapshot") throw new Error("expected the snapshot");
			attempt.joined = true;
			this.everJoined = true;
			this.retries = 0;
			this.setState("connected", undefined);
		}
		if (message.type === "collab_snapshot") {
			for (const listener of this.snapshotListeners) listener(message as GuestSnapshot);
		} else if (message.type === "response") {
			const id = typeof message.id === "string" ? message.id : undefined;
			const waiting = id === undefined ? undefined : this.pending.get(id);
			if (waiting) {
				this.pending.delete(id!);
				waiting.resolve(message as GuestResponse);
			}
		} else if (typeof message.seq === "number") {
			for (const listener of this.eventListeners) listener(message as SkiffEvent);
		}
	}

	/** A frame that did not open, or a message out of place: this connection cannot be trusted; a new one is made. */
	private protocolError(attempt: Attempt): void {
		if (this.attempt !== attempt || attempt.closedBy) return;
		attempt.closedBy = "guest";
		attempt.socket.close(1000, INVALID_FRAME_REASON); // scripts may only close with 1000 or 3000-4999
		this.dropped(attempt, DETAIL_PROTOCOL);
	}

	private closed(attempt: Attempt, code: number): void {
		if (this.attempt !== attempt || attempt.closedBy) return;
		if (code === CLOSE_ROOM_STOPPED) return this.finish("ended", DETAIL_STOPPED);
		if (code === CLOSE_SESSION_UNAVAILABLE) return this.finish("ended", DETAIL_SESSION_GONE);
		if (code === CLOSE_ROOM_FULL) return this.finish("failed", DETAIL_FULL);
		// A socket that never opened was refused (a browser is never told why): an unknown room or a wrong key.
		if (!attempt.opened && !this.everJoined) return this.finish("failed", DETAIL_NOT_JOINED);
		this.dropped(attempt, DETAIL_LOST);
	}

	/** The connection is gone; another is tried after the backoff, unless too many failed in a row. */
	private dropped(attempt: Attempt, detail: string): void {
		if (this.attempt === attempt) this.attempt = undefined;
		this.rejectPending("Connection lost before the host answered");
		if (this.retries >= (this.options.maxRetries ?? MAX_GUEST_RETRIES)) return this.finish("failed", DETAIL_NOT_JOINED);
		const delay = (this.options.retryDelay ?? backoffDelay)(this.retries++);
		this.setState("reconnecting", detail);
		this.retryTimer = setTimeout(() => {
			this.retryTimer = undefined;
			if (!this.isOver()) void this.connect();
		}, delay);
	}

	/** Ends for good: closes the socket, forgets the key, rejects what waits. */
	private finish(status: "ended" | "failed", detail: string): void {
		if (this.isOver()) return;
		clearTimeout(this.retryTimer);
		this.retryTimer = undefined;
		const attempt = this.attempt;
		this.attempt = undefined;
		if (attempt && !attempt.closedBy) {
			attempt.closedBy = "guest";
			attempt.socket.close(1000, "guest left");
		}
		this.key?.fill(0);
		this.key = undefined;
		this.rejectPending(detail);
		this.setState(status, detail);
	}

	private rejectPending(reason: string): void {
		const waiting = [...this.pending.values()];
		this.pending.clear();
		for (const command of waiting) command.reject(new Error(reason));
	}

	private setState(status: GuestStatus, detail: string | undefined): void {
		this.current = { status, role: this.link.role, roomId: this.link.roomId, detail, canCommand: status === "connected" && this.link.role === "control" };
		for (const listener of this.stateListeners) listener(this.current);
	}
}
