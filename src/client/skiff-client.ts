/**
 * SkiffClient: the control protocol over `/ws` (docs/protocol.md) as typed calls and typed events, for browsers
 * and Node alike. It matches responses to commands by generated ids, follows the sessions it touches, and after
 * a lost connection reconnects with backoff and resumes every followed session by seq, so events arrive once
 * each, in order, or the application is told to reload (`onResync`).
 *
 * It depends on nothing but the generated declarations and a WebSocket class (the global one by default; the
 * Node entry, node.ts, supplies `ws`).
 */
import { backoffDelay } from "./backoff.js";
import { type CallOptions, type CommandMethods, commandMethods } from "./command-methods.js";
import { SkiffCommandError, SkiffConnectionError } from "./errors.js";
import { SessionPositions } from "./positions.js";
import type { CommandName, CommandParams, CommandResult, ErrorCode, EventOf, EventType, SessionState, SkiffEvent } from "./protocol.generated.js";
import { type ConnectionRefusal, REFUSED_OR_DOWN } from "./refusal.js";
import { type UploadedAttachment, uploadImage } from "./upload.js";
import { SOCKET_OPEN, type SocketCloseEvent, type SocketMessageEvent, type WebSocketConstructor, type WebSocketLike } from "./socket.js";

/**
 * `connecting`: the first attempt; `connected`: open, and every followed session resumed; `reconnecting`: after
 * a lost connection, waiting or trying again; `offline`: not connected and not trying (refused, or closed).
 */
export type ConnectionStatus = "connecting" | "connected" | "reconnecting" | "offline";

/** A status change, with what people should be told about it. */
export interface StatusChange {
	status: ConnectionStatus;
	/** A sentence about what happened (absent when there is nothing to say). */
	detail?: string;
	/** While reconnecting: the wait before the next attempt, in ms. */
	retryInMs?: number;
	/** Why the connection did not open. */
	refusal?: ConnectionRefusal;
	/** How the last connection was closed. */
	closed?: { code: number; reason: string };
}

/**
 * After a reconnect the events a session missed could not be replayed (the service restarted, or they are no
 * longer kept): reload its snapshot (`reloadSession`) and apply only later events, which the client ensures.
 */
export interface ResyncNotice {
	sessionId: string;
	/** Set when the session could not be followed again (e.g. it no longer exists): a reload fails too. */
	error?: SkiffCommandError;
}

export interface ReconnectOptions {
	/** The wait in ms before retry `attempt` (0 first); default `backoffDelay` (1 s doubling, capped at 15 s). */
	delayMs?(attempt: number): number;
}

export interface SkiffClientOptions {
	/** The service's WebSocket route, e.g. `ws://127.0.0.1:8787/ws`. */
	url: string;
	/** The access token, or a function read at every (re)connect. Sent only as the subprotocol `skiff-auth.<token>`. */
	token?: string | (() => string | undefined);
	/** The WebSocket class; default the global one (the Node entry defaults to `ws`). */
	WebSocket?: WebSocketConstructor;
	/** Reconnect after a lost connection (default true, with the default backoff). */
	reconnect?: boolean | ReconnectOptions;
	/** How long a command may wait for its answer, in ms (default `DEFAULT_TIMEOUT_MS`). */
	timeoutMs?: number;
}

/** The default wait for an answer: generous, because `compact` waits for the model. */
export const DEFAULT_TIMEOUT_MS = 10 * 60_000;
/** Resubscribes in flight at once after a reconnect (the service takes 16 commands in flight per socket). */
const RESUBSCRIBES_IN_FLIGHT = 8;
/**
 * Commands the client has in flight on its socket at most: the service's own bound, which answers any more with
 * an error at once. More wait their turn here, so parts of a program that call at the same time (a page's panels
 * as it opens) never see a command refused for the others'.
 */
export const COMMANDS_IN_FLIGHT = 16;
/** What a subprotocol can carry (an HTTP token): anything else could never be offered, so it is refused here. */
const TOKEN_SYNTAX = /^[A-Za-z0-9!#$%&'*+\-.^_`|~]+$/;
/** Close code of a normal close, sent when the client drops a socket itself. */
const NORMAL_CLOSE = 1000;

interface Pending {
	command: string;
	sessionId: string | undefined;
	resolve(data: unknown): void;
	reject(error: Error): void;
	timer: ReturnType<typeof setTimeout>;
}

type Listener<T> = (value: T) => void;

export class SkiffClient {
	/** Every command as a typed method: `client.commands.get_state()`, `client.commands.prompt({ message })`. */
	readonly commands: CommandMethods;
	private statusNow: ConnectionStatus = "offline";
	private socket: WebSocketLike | undefined;
	private nextId = 1;
	private readonly pending = new Map<string, Pending>();
	/** Commands waiting for a place in flight, oldest first. */
	private readonly waiting: Array<() => void> = [];
	/** Calls made while the resubscribes of a new connection are under way: sent right after them. */
	private queued: Array<() => void> = [];
	private resubscribing = false;
	private readonly positions = new SessionPositions();
	private epochRequested = false;
	private attempt = 0;
	private retryTimer: ReturnType<typeof setTimeout> | undefined;
	/** A socket has opened since `connect()` was first called: later failures to open are retried. */
	private everOpened = false;
	/** The application wants a connection (between `connect()` and `close()`). */
	private wanted = false;
	private connectWaiters: Array<{ resolve(): void; reject(error: Error): void }> = [];
	private readonly eventListeners = new Set<Listener<SkiffEvent>>();
	private readonly typedListeners = new Map<string, Set<Listener<SkiffEvent>>>();
	private readonly statusListeners = new Set<Listener<StatusChange>>();
	private readonly resyncListeners = new Set<Listener<ResyncNotice>>();

	constructor(private readonly options: SkiffClientOptions) {
		if (!options.WebSocket && !globalWebSocket()) {
			throw new Error('No WebSocket implementation: pass `WebSocket` in the options (in Node, import "skiff/client", whose Node entry uses `ws`)');
		}
		this.commands = commandMethods((type, params, callOptions) => this.call(type, params as never, callOptions));
	}

	get status(): ConnectionStatus {
		return this.statusNow;
	}

	/**
	 * Connects now, replacing any socket or pending retry (also the way to retry with a new token). Resolves once
	 * connected; rejects with a `SkiffConnectionError` when the connection is refused before it ever opened, or
	 * `close()` is called first.
	 */
	connect(): Promise<void> {
		this.wanted = true;
		this.attempt = 0;
		const connected = new Promise<void>((resolve, reject) => this.connectWaiters.push({ resolve, reject }));
		this.open(this.everOpened ? "reconnecting" : "connecting");
		return connected;
	}

	/** Closes the connection and stops reconnecting; calls waiting for an answer fail with `connection_lost`. */
	close(): void {
		this.wanted = false;
		this.dropSocket("the client was closed");
		this.setStatus({ status: "offline" });
	}

	/** Sends a command; resolves with its `data`, rejects with a `SkiffCommandError`. */
	call<K extends CommandName>(type: K, params: CommandParams<K>, options: CallOptions = {}): Promise<CommandResult<K>> {
		const socket = this.socket;
		if (!socket || socket.readyState !== SOCKET_OPEN) {
			return Promise.reject(new SkiffCommandError(type, "not_connected", "not connected to the service"));
		}
		const send = () => this.send(socket, type, params, options.sessionId, options.timeoutMs, true) as Promise<CommandResult<K>>;
		if (!this.resubscribing) return send();
		return new Promise((resolve, reject) => this.queued.push(() => void send().then(resolve, reject)));
	}

	/**
	 * Uploads an image for a later message (POST /attachments, with this client's token): name it in `images` as
	 * `{type: "image", attachmentId: id}`. Unused uploads expire; rejects with a SkiffCommandError naming what was wrong.
	 */
	upload(data: Blob | Uint8Array<ArrayBuffer>, mimeType: string): Promise<UploadedAttachment> {
		return uploadImage(this.options.url, this.token(), data, mimeType);
	}

	/**
	 * Reloads a session's snapshot (after `onResync`): its transcript, the message streaming now, and their seq;
	 * with `last`, only the newest `last` messages of the transcript (`total` counts them all).
	 */
	reloadSession(sessionId: string, last?: number): Promise<CommandResult<"get_messages">> {
		return this.call("get_messages", last === undefined ? {} : { last }, { sessionId });
	}

	/** Whether a reconnect resumes this session (it was addressed or its events arrived, and it was not closed). */
	isFollowing(sessionId: string): boolean {
		return this.positions.follows(sessionId);
	}

	/** Listens to one event type; returns the unsubscribe function. */
	on<T extends EventType>(type: T, listener: (event: EventOf<T>) => void): () => void {
		let listeners = this.typedListeners.get(type);
		if (!listeners) this.typedListeners.set(type, (listeners = new Set()));
		const registered = listener as Listener<SkiffEvent>;
		listeners.add(registered);
		return () => void listeners.delete(registered);
	}

	/** Listens to every event; returns the unsubscribe function. */
	onEvent(listener: (event: SkiffEvent) => void): () => void {
		this.eventListeners.add(listener);
		return () => void this.eventListeners.delete(listener);
	}

	/** Listens to status changes; returns the unsubscribe function. */
	onStatus(listener: (change: StatusChange) => void): () => void {
		this.statusListeners.add(listener);
		return () => void this.statusListeners.delete(listener);
	}

	/** Listens to resync notices (after a reconnect, before the status turns `connected`); returns the unsubscribe function. */
	onResync(listener: (notice: ResyncNotice) => void): () => void {
		this.resyncListeners.add(listener);
		return () => void this.resyncListeners.delete(listener);
	}

	private token(): string | undefined {
		const token = typeof this.options.token === "function" ? this.options.token() : this.options.token;
		return token ? token : undefined;
	}

	private open(status: "connecting" | "reconnecting"): void {
		this.dropSocket("the connection was replaced");
		this.positions.newConnection();
		this.epochRequested = false;
		const token = this.token();
		if (token !== undefined && !TOKEN_SYNTAX.test(token)) {
			return this.goOffline({
				kind: "invalid_token",
				message: "the token has characters a WebSocket subprotocol cannot carry (allowed: letters, digits and !#$%&'*+-.^_`|~)",
				final: true,
			});
		}
		this.setStatus({ status });
		const url = this.options.url;
		let socket: WebSocketLike;
		try {
			const Implementation = this.options.WebSocket ?? globalWebSocket()!;
			socket = new Implementation(url, token ? [`skiff-auth.${token}`] : []);
		} catch (error) {
			return this.goOffline({ kind: "cannot_open", message: `cannot open ${url}: ${(error as Error).message}`, final: true });
		}
		this.socket = socket;
		let opened = false;
		socket.onopen = () => {
			opened = true;
			this.everOpened = true;
			this.resubscribe(socket);
		};
		socket.onmessage = (event: SocketMessageEvent) => this.receive(socket, event.data);
		socket.onerror = () => undefined; // a close always follows; handling the error keeps `ws` from throwing it
		socket.onclose = (event: SocketCloseEvent) => {
			if (this.socket !== socket) return;
			this.socket = undefined;
			this.failPending("the connection closed");
			if (!this.wanted) return this.setStatus({ status: "offline" });
			const reconnects = this.options.reconnect !== false;
			if (!opened) {
				const refusal = socket.refusal ?? REFUSED_OR_DOWN;
				if (!this.everOpened || refusal.final || !reconnects) return this.goOffline(refusal);
				return this.scheduleRetry(refusal.kind === "refused_or_down" ? "connection lost" : refusal.message, { refusal });
			}
			const closed = { code: event.code, reason: event.reason };
			const lost = closed.reason ? `closed by the service (${closed.reason})` : "connection lost";
			if (!reconnects) return this.setStatus({ status: "offline", detail: lost, closed });
			this.scheduleRetry(lost, { closed });
		};
	}

	/**
	 * Resumes every followed session on a new socket, before anything else is sent: `subscribe` with the last
	 * seq and epoch, so missed events are replayed in order, or a resync is announced. Calls made meanwhile wait.
	 */
	private resubscribe(socket: WebSocketLike): void {
		const resumes = this.positions.resumes();
		const notices: ResyncNotice[] = [];
		this.resubscribing = true;
		let next = 0;
		let active = 0;
		const finish = () => {
			if (this.socket !== socket) return;
			this.resubscribing = false;
			this.attempt = 0;
			for (const send of this.queued.splice(0)) send();
			for (const notice of notices) notify(this.resyncListeners, notice);
			this.setStatus({ status: "connected" });
			for (const { sessionId } of this.positions.resumes()) this.learnEpochSoon(sessionId);
		};
		const pump = () => {
			while (active < RESUBSCRIBES_IN_FLIGHT && next < resumes.length) {
				const resume = resumes[next++]!;
				active++;
				this.send(socket, "subscribe", { sinceSeq: resume.sinceSeq, epoch: resume.epoch }, resume.sessionId, undefined, false)
					.then(
						(data) => {
							const result = data as CommandResult<"subscribe">;
							if (result.resync || resume.sinceSeq === undefined) {
								this.positions.restart(resume.sessionId, result.seq);
								notices.push({ sessionId: resume.sessionId });
							} else {
								if (resume.epoch !== undefined) this.positions.learnEpoch(resume.epoch); // a replay confirms the numbering
								this.positions.cover(resume.sessionId, result.seq);
							}
						},
						(error: SkiffCommandError) => {
							if (this.socket !== socket) return;
							this.positions.unfollow(resume.sessionId);
							notices.push({ sessionId: resume.sessionId, error });
						},
					)
					.finally(() => {
						active--;
						if (next < resumes.length) pump();
						else if (active === 0) finish();
					});
			}
		};
		if (resumes.length === 0) finish();
		else pump();
	}

	private send(socket: WebSocketLike, type: string, params: object, sessionId: string | undefined, timeoutMs: number | undefined, track: boolean): Promise<unknown> {
		if (socket !== this.socket || socket.readyState !== SOCKET_OPEN) {
			return Promise.reject(new SkiffCommandError(type, "connection_lost", "the connection closed"));
		}
		if (this.pending.size >= COMMANDS_IN_FLIGHT) {
			return new Promise((resolve, reject) => this.waiting.push(() => void this.send(socket, type, params, sessionId, timeoutMs, track).then(resolve, reject)));
		}
		const id = `c${this.nextId++}`;
		const frame = JSON.stringify({ ...params, type, id, ...(sessionId === undefined ? {} : { sessionId }) });
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => {
				this.pending.delete(id);
				this.sendWaiting();
				reject(new SkiffCommandError(type, "timeout", "no answer from the service"));
			}, timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
			this.pending.set(id, {
				command: type,
				sessionId,
				resolve: (data) => {
					if (track) this.track(type, sessionId, data);
					resolve(data);
				},
				reject,
				timer,
			});
			socket.send(frame);
		});
	}

	private receive(socket: WebSocketLike, data: unknown): void {
		if (socket !== this.socket) return;
		let value: unknown;
		try {
			value = JSON.parse(String(data));
		} catch {
			return; // the service sends only JSON; anything else is not ours to interpret
		}
		if (!isRecord(value) || typeof value.type !== "string") return;
		if (value.type === "response") return this.answer(value);
		if (typeof value.sessionId !== "string" || typeof value.seq !== "number") return;
		if (!this.positions.accept(value.sessionId, value.seq)) return; // a repeat
		const event = value as unknown as SkiffEvent;
		if (event.type === "session_unloaded") this.positions.unfollow(event.sessionId);
		else this.learnEpochSoon(event.sessionId);
		notify(this.eventListeners, event);
		const typed = this.typedListeners.get(event.type);
		if (typed) notify(typed, event);
	}

	private answer(response: Record<string, unknown>): void {
		const id = response.id;
		const waiter = typeof id === "string" ? this.pending.get(id) : undefined;
		if (!waiter) return;
		this.pending.delete(id as string);
		clearTimeout(waiter.timer);
		this.sendWaiting();
		if (response.success === true) return waiter.resolve(response.data);
		const code = typeof response.code === "string" ? (response.code as ErrorCode) : "failed";
		const message = typeof response.error === "string" ? response.error : "command failed";
		waiter.reject(new SkiffCommandError(waiter.command, code, message));
	}

	/** Keeps the positions up to date from a successful command's result (see positions.ts). */
	private track(type: string, sessionId: string | undefined, data: unknown): void {
		const result = isRecord(data) ? data : {};
		if (type === "close_session") {
			if (typeof result.sessionId === "string") this.positions.unfollow(result.sessionId);
			return;
		}
		if (sessionId !== undefined) this.positions.follow(sessionId);
		switch (type) {
			case "get_state":
				this.fromState(result as Partial<SessionState>);
				break;
			case "new_session":
			case "switch_session":
			case "fork":
			case "clone":
				if (isRecord(result.state)) this.fromState(result.state as Partial<SessionState>);
				break;
			case "get_messages":
				if (sessionId !== undefined && typeof result.seq === "number") this.positions.cover(sessionId, result.seq);
				break;
			case "subscribe":
				if (typeof result.sessionId !== "string" || typeof result.seq !== "number") break;
				if (result.resync) this.positions.restart(result.sessionId, result.seq);
				else this.positions.cover(result.sessionId, result.seq);
				break;
		}
	}

	private fromState(state: Partial<SessionState>): void {
		if (typeof state.epoch === "string") this.positions.learnEpoch(state.epoch);
		if (typeof state.sessionId === "string" && typeof state.lastSeq === "number") this.positions.cover(state.sessionId, state.lastSeq);
	}

	/**
	 * Positions advanced on a connection whose epoch nobody reported yet could not be resumed after a drop, so
	 * the client asks once per connection (get_state of a session it follows anyway: no side effect).
	 */
	private learnEpochSoon(sessionId: string): void {
		const socket = this.socket;
		if (this.positions.epochKnown || this.epochRequested || this.resubscribing || !socket) return;
		this.epochRequested = true;
		this.send(socket, "get_state", {}, sessionId, undefined, true).catch(() => undefined);
	}

	private scheduleRetry(what: string, cause: Pick<StatusChange, "refusal" | "closed">): void {
		const reconnect = this.options.reconnect;
		const delay = (typeof reconnect === "object" && reconnect.delayMs ? reconnect.delayMs : backoffDelay)(this.attempt++);
		this.setStatus({ status: "reconnecting", detail: `${what}; retrying in ${Math.round(delay / 1000)} s`, retryInMs: delay, ...cause });
		this.retryTimer = setTimeout(() => {
			this.retryTimer = undefined;
			this.open("reconnecting");
		}, delay);
	}

	private goOffline(refusal: ConnectionRefusal): void {
		this.setStatus({ status: "offline", detail: refusal.message, refusal });
	}

	private dropSocket(reason: string): void {
		if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
		this.retryTimer = undefined;
		const socket = this.socket;
		this.socket = undefined;
		if (socket) {
			socket.onopen = socket.onmessage = socket.onerror = socket.onclose = null;
			socket.close(NORMAL_CLOSE);
		}
		this.failPending(reason);
	}

	private failPending(reason: string): void {
		this.resubscribing = false;
		for (const [id, waiter] of this.pending) {
			clearTimeout(waiter.timer);
			this.pending.delete(id);
			waiter.reject(new SkiffCommandError(waiter.command, "connection_lost", reason));
		}
		for (const send of this.queued.splice(0)) send(); // each fails at once: its socket is gone
		this.sendWaiting(); // likewise
	}

	/** Sends the commands that wait for a place in flight, as places free (see COMMANDS_IN_FLIGHT). */
	private sendWaiting(): void {
		while (this.waiting.length > 0 && this.pending.size < COMMANDS_IN_FLIGHT) this.waiting.shift()!();
	}

	private setStatus(change: StatusChange): void {
		this.statusNow = change.status;
		notify(this.statusListeners, change);
		if (change.status === "connected") {
			for (const waiter of this.connectWaiters.splice(0)) waiter.resolve();
		} else if (change.status === "offline") {
			for (const waiter of this.connectWaiters.splice(0)) waiter.reject(new SkiffConnectionError(change.refusal));
		}
	}
}

function globalWebSocket(): WebSocketConstructor | undefined {
	return (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Calls each listener; one that throws is reported as an uncaught error without stopping the others. */
function notify<T>(listeners: Iterable<Listener<T>>, value: T): void {
	for (const listener of [...listeners]) {
		try {
			listener(value);
		} catch (error) {
			queueMicrotask(() => {
				throw error;
			});
		}
	}
}
