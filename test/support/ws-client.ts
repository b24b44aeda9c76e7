/** A small WebSocket client for tests: sends commands, matches responses by id, collects events. */
import WebSocket from "ws";

export interface Event {
	type: string;
	sessionId: string;
	seq: number;
	[key: string]: any;
}

export interface Response {
	id?: string;
	type: "response";
	command: string;
	success: boolean;
	data?: any;
	error?: string;
	code?: string;
}

export class TestClient {
	readonly events: Event[] = [];
	readonly responses: Response[] = [];
	readonly frames: string[] = [];
	private nextId = 1;
	private readonly waiters = new Set<() => void>();
	closed: { code: number; reason: string } | undefined;

	private constructor(readonly socket: WebSocket) {
		socket.on("message", (data) => {
			const text = data.toString();
			this.frames.push(text);
			const value = JSON.parse(text);
			if (value.type === "response") this.responses.push(value);
			else this.events.push(value);
			for (const wake of [...this.waiters]) wake();
		});
		socket.on("close", (code, reason) => {
			this.closed = { code, reason: reason.toString() };
			for (const wake of [...this.waiters]) wake();
		});
	}

	static connect(url: string, options: { protocols?: string[]; headers?: Record<string, string> } = {}): Promise<TestClient> {
		return new Promise((resolve, reject) => {
			const socket = new WebSocket(url, options.protocols ?? [], { headers: options.headers });
			socket.once("open", () => resolve(new TestClient(socket)));
			socket.once("error", reject);
			socket.once("unexpected-response", (_req, res) => {
				let body = "";
				res.on("data", (d: Buffer) => (body += d));
				res.on("end", () => reject(Object.assign(new Error(`HTTP ${res.statusCode}: ${body.trim()}`), { status: res.statusCode, body })));
			});
		});
	}

	/** Sends a command and resolves with its response. */
	async request(command: Record<string, unknown>, timeoutMs = 15_000): Promise<Response> {
		const id = `t${this.nextId++}`;
		this.socket.send(JSON.stringify({ ...command, id }));
		let next = 0;
		return this.waitFor(
			() => {
				for (; next < this.responses.length; next++) if (this.responses[next]!.id === id) return this.responses[next];
				return undefined;
			},
			timeoutMs,
			`response to ${String(command.type)}`,
		);
	}

	/** Sends a command that must succeed and returns its data. */
	async ok(command: Record<string, unknown>, timeoutMs?: number): Promise<any> {
		const response = await this.request(command, timeoutMs);
		if (!response.success) throw new Error(`${String(command.type)} failed: ${response.error}`);
		return response.data;
	}

	sendRaw(data: string | Buffer, binary = false): void {
		this.socket.send(data, { binary });
	}

	/** Resolves with the first event (from index `from`) that matches; each event is examined once. */
	waitForEvent(match: (e: Event) => boolean, timeoutMs = 15_000, from = 0): Promise<Event> {
		let next = from;
		return this.waitFor(
			() => {
				for (; next < this.events.length; next++) if (match(this.events[next]!)) return this.events[next];
				return undefined;
			},
			timeoutMs,
			"event",
		);
	}

	/** Creates a session (new_session), which `followers` subscribe to as well, and resolves with its id. */
	async newSession(...followers: TestClient[]): Promise<string> {
		const { sessionId } = await this.ok({ type: "new_session" });
		for (const follower of followers) await follower.ok({ type: "subscribe", sessionId });
		return sessionId;
	}

	/** Prompts a session and resolves, once its run has ended, with that session's events of the run. */
	async turn(sessionId: string, message: string, timeoutMs = 20_000): Promise<Event[]> {
		const from = this.events.length;
		await this.ok({ type: "prompt", sessionId, message });
		await this.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, timeoutMs, from);
		return this.events.slice(from).filter((e) => e.sessionId === sessionId);
	}

	waitForClose(timeoutMs = 10_000): Promise<{ code: number; reason: string }> {
		return this.waitFor(() => this.closed, timeoutMs, "close");
	}

	waitFor<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
		return new Promise((resolve, reject) => {
			const check = () => {
				const value = probe();
				if (value === undefined && this.closed === undefined) return;
				clearTimeout(timer);
				this.waiters.delete(check);
				// Nothing more comes once the connection closed: waiting on would only hold the test (and its
				// process, a request's timer, up to a minute) until the timeout.
				if (value === undefined) reject(new Error(`the connection closed (${this.closed!.code}) before ${what}`));
				else resolve(value);
			};
			const timer = setTimeout(() => {
				this.waiters.delete(check);
				reject(new Error(`timed out waiting for ${what}`));
			}, timeoutMs);
			this.waiters.add(check);
			check();
		});
	}

	close(): void {
		this.socket.close();
	}
}
