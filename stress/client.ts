/**
 * A lean WebSocket client for the stress scenarios: it parses each frame once, matches responses to requests
 * by id, counts every response (also those without a usable id) and hands events to a callback, keeping
 * nothing else, so a hundred of them can follow a 20,000-delta reply in one process.
 */
import WebSocket from "ws";

export interface WireEvent {
	type: string;
	sessionId: string;
	seq: number;
	[key: string]: any;
}

export interface WireResponse {
	id?: unknown;
	type: "response";
	command: string;
	success: boolean;
	data?: any;
	error?: string;
}

export interface ConnectOptions {
	headers?: Record<string, string>;
	/** Source address of the TCP connection (another 127.x address stands for another client). */
	localAddress?: string;
}

const REQUEST_LIMIT_MS = 30_000;

export class StressClient {
	/** Every response frame received. */
	responses = 0;
	/** Frames that were not JSON (the server never sends one). */
	unparsable = 0;
	onEvent: ((event: WireEvent, receivedAt: number) => void) | undefined;
	onResponse: ((response: WireResponse) => void) | undefined;
	readonly closed: Promise<{ code: number; reason: string }>;
	private readonly pending = new Map<string, (response: WireResponse) => void>();
	private nextId = 1;

	private constructor(readonly socket: WebSocket) {
		socket.on("message", (data) => {
			const receivedAt = performance.now();
			let value: any;
			try {
				value = JSON.parse(data.toString());
			} catch {
				this.unparsable++;
				return;
			}
			if (value?.type === "response") {
				this.responses++;
				this.onResponse?.(value);
				const wake = typeof value.id === "string" ? this.pending.get(value.id) : undefined;
				if (wake) {
					this.pending.delete(value.id);
					wake(value);
				}
			} else this.onEvent?.(value, receivedAt);
		});
		this.closed = new Promise((resolve) => socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() })));
		socket.on("error", () => {}); // a cut-off shows as the close code
	}

	static connect(url: string, options: ConnectOptions = {}): Promise<StressClient> {
		return new Promise((resolve, reject) => {
			const socket = new WebSocket(url, { headers: options.headers, localAddress: options.localAddress, perMessageDeflate: false });
			socket.once("open", () => resolve(new StressClient(socket)));
			socket.once("error", reject);
			socket.once("unexpected-response", (_request, response) => reject(new Error(`HTTP ${response.statusCode} on WebSocket upgrade`)));
		});
	}

	get open(): boolean {
		return this.socket.readyState === WebSocket.OPEN;
	}

	/** Sends a frame as is (text). */
	sendRaw(text: string): void {
		this.socket.send(text);
	}

	/** Sends a command with a fresh id and resolves with its response. */
	request(command: Record<string, unknown>, limitMs = REQUEST_LIMIT_MS): Promise<WireResponse> {
		const id = `s${this.nextId++}`;
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => {
				this.pending.delete(id);
				reject(new Error(`no response to ${String(command.type)} within ${limitMs / 1000} s`));
			}, limitMs);
			this.pending.set(id, (response) => {
				clearTimeout(timer);
				resolve(response);
			});
			this.socket.send(JSON.stringify({ ...command, id }));
		});
	}

	/** Sends a command that must succeed; resolves with its data. */
	async ok(command: Record<string, unknown>, limitMs?: number): Promise<any> {
		const response = await this.request(command, limitMs);
		if (!response.success) throw new Error(`${String(command.type)} failed: ${response.error}`);
		return response.data;
	}

	/** Stops (or resumes) reading the TCP socket: the kernel buffers fill, then the server has to queue. */
	setReading(reading: boolean): void {
		const tcp = (this.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
		if (reading) tcp.resume();
		else tcp.pause();
	}

	close(): void {
		this.socket.close();
	}

	terminate(): void {
		this.socket.terminate();
	}
}

/** Resolves once `probe()` holds, checking on every event-loop turn that had I/O, or rejects after `limitMs`. */
export async function until(probe: () => boolean, limitMs: number, what: string): Promise<void> {
	const deadline = performance.now() + limitMs;
	while (!probe()) {
		if (performance.now() > deadline) throw new Error(`timed out after ${limitMs / 1000} s waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}
