/**
 * The page's WebSocket to /ws: opens it (offering the token only as the `skiff-auth.<token>` subprotocol),
 * matches responses to requests by id, hands events on, and reconnects after an unexpected close with
 * the backoff of `backoff.ts` (from 1 s, doubling, capped at 15 s).
 */
import { backoffDelay } from "./backoff";

export type ConnectionStatus = "connecting" | "connected" | "reconnecting" | "offline";

/** A command unanswered for this long fails (compaction can take minutes, so it is generous). */
const REQUEST_TIMEOUT_MS = 10 * 60_000;

export interface WireEvent {
	type: string;
	sessionId: string;
	seq: number;
	[key: string]: any;
}

export interface ConnectionHandlers {
	/** The socket is open; the caller rebinds, then calls `markReady`. */
	onOpen(): void;
	onEvent(event: WireEvent): void;
	onStatus(status: ConnectionStatus, detail: string | undefined): void;
}

export class CommandError extends Error {
	constructor(
		readonly command: string,
		message: string,
	) {
		super(message);
	}
}

export class Connection {
	private socket: WebSocket | undefined;
	private nextId = 1;
	private readonly pending = new Map<string, { resolve(data: any): void; reject(error: Error): void; timer: number }>();
	private attempt = 0;
	private retryTimer: number | undefined;
	/** Whether the current socket ever opened: a socket refused at once is not retried blindly. */
	private everOpened = false;
	private wanted = false;
	status: ConnectionStatus = "offline";

	constructor(
		private readonly url: string,
		private readonly token: () => string | undefined,
		private readonly handlers: ConnectionHandlers,
	) {}

	/** Connects now (dropping any socket or pending retry); used at start and by the Connect button. */
	connect(): void {
		this.wanted = true;
		this.attempt = 0;
		this.open(this.everOpened ? "reconnecting" : "connecting");
	}

	/** The rebind after open is done: controls may become active. */
	markReady(): void {
		this.attempt = 0;
		this.setStatus("connected");
	}

	/** Sends a command; resolves with its `data`, rejects with the server's error. */
	request<T = any>(command: Record<string, unknown>): Promise<T> {
		const socket = this.socket;
		if (!socket || socket.readyState !== WebSocket.OPEN) {
			return Promise.reject(new CommandError(String(command.type), "not connected to the service"));
		}
		const id = `w${this.nextId++}`;
		return new Promise<T>((resolve, reject) => {
			const timer = window.setTimeout(() => {
				this.pending.delete(id);
				reject(new CommandError(String(command.type), "no answer from the service"));
			}, REQUEST_TIMEOUT_MS);
			this.pending.set(id, { resolve, reject, timer });
			socket.send(JSON.stringify({ ...command, id }));
		});
	}

	private open(status: ConnectionStatus): void {
		this.dropSocket();
		this.setStatus(status);
		const token = this.token();
		let socket: WebSocket;
		try {
			socket = new WebSocket(this.url, token ? [`skiff-auth.${token}`] : []);
		} catch (error) {
			this.setStatus("offline", `cannot open ${this.url}: ${String(error)}`);
			return;
		}
		this.socket = socket;
		let opened = false;
		socket.onopen = () => {
			opened = true;
			this.everOpened = true;
			this.handlers.onOpen();
		};
		socket.onmessage = (message) => this.receive(String(message.data));
		socket.onclose = (close) => {
			if (this.socket !== socket) return;
			this.socket = undefined;
			this.failPending("the connection closed");
			if (!this.wanted) return this.setStatus("offline");
			if (!opened && !this.everOpened) {
				// Never connected: most likely a token is needed (or the service is not running). Wait for Connect.
				return this.setStatus("offline", "The service refused the connection or is not running. If it requires a token, enter it and press Connect.");
			}
			this.scheduleRetry(close.code === 1008 ? `closed by the service: ${close.reason}` : undefined);
		};
	}

	private scheduleRetry(detail: string | undefined): void {
		const delay = backoffDelay(this.attempt++);
		this.setStatus("reconnecting", detail ?? `connection lost; retrying in ${Math.round(delay / 1000)} s`);
		this.retryTimer = window.setTimeout(() => {
			this.retryTimer = undefined;
			this.open("reconnecting");
		}, delay);
	}

	private receive(text: string): void {
		let value: any;
		try {
			value = JSON.parse(text);
		} catch {
			return;
		}
		if (value?.type === "response") {
			const waiter = typeof value.id === "string" ? this.pending.get(value.id) : undefined;
			if (!waiter) return;
			this.pending.delete(value.id);
			window.clearTimeout(waiter.timer);
			if (value.success) waiter.resolve(value.data);
			else waiter.reject(new CommandError(value.command, value.error ?? "command failed"));
			return;
		}
		if (value && typeof value.type === "string") this.handlers.onEvent(value as WireEvent);
	}

	private dropSocket(): void {
		if (this.retryTimer !== undefined) window.clearTimeout(this.retryTimer);
		this.retryTimer = undefined;
		const socket = this.socket;
		this.socket = undefined;
		if (socket) {
			socket.onclose = socket.onmessage = socket.onopen = null;
			socket.close();
		}
		this.failPending("the connection was replaced");
	}

	private failPending(reason: string): void {
		for (const [id, waiter] of this.pending) {
			window.clearTimeout(waiter.timer);
			waiter.reject(new CommandError("connection", reason));
			this.pending.delete(id);
		}
	}

	private setStatus(status: ConnectionStatus, detail?: string): void {
		this.status = status;
		this.handlers.onStatus(status, detail);
	}
}
