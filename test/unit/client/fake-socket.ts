/** A scripted WebSocket for the client's unit tests: the test plays the service. */
import type { ConnectionRefusal, WebSocketLike } from "../../../src/client/index.js";

export class FakeSocket implements WebSocketLike {
	/** Every socket made, oldest first. */
	static made: FakeSocket[] = [];
	readyState = 0;
	/** The frames the client sent, parsed. */
	readonly sent: Array<Record<string, any>> = [];
	refusal: ConnectionRefusal | undefined;
	onopen: ((event: never) => void) | null = null;
	onmessage: ((event: never) => void) | null = null;
	onerror: ((event: never) => void) | null = null;
	onclose: ((event: never) => void) | null = null;

	constructor(
		readonly url: string,
		readonly protocols?: string | string[],
	) {
		FakeSocket.made.push(this);
	}

	static latest(): FakeSocket {
		const socket = FakeSocket.made.at(-1);
		if (!socket) throw new Error("no socket was made");
		return socket;
	}

	static reset(): void {
		FakeSocket.made = [];
	}

	send(data: string): void {
		this.sent.push(JSON.parse(data));
	}

	close(): void {
		this.readyState = 3;
	}

	/** The handshake succeeded. */
	open(): void {
		this.readyState = 1;
		this.onopen?.({} as never);
	}

	/** The service sends one frame. */
	deliver(frame: Record<string, unknown>): void {
		this.onmessage?.({ data: JSON.stringify(frame) } as never);
	}

	/** The service answers the `n`-th sent frame of this type (0 = first) with `data`, or fails it. */
	answer(type: string, data?: unknown, n = 0): void {
		const frame = this.sent.filter((f) => f.type === type)[n];
		if (!frame) throw new Error(`no ${type} frame #${n} was sent (sent: ${this.sent.map((f) => f.type).join(", ")})`);
		this.deliver({ type: "response", id: frame.id, command: type, success: true, ...(data === undefined ? {} : { data }) });
	}

	fail(type: string, error: string, code: string, n = 0): void {
		const frame = this.sent.filter((f) => f.type === type)[n];
		if (!frame) throw new Error(`no ${type} frame #${n} was sent`);
		this.deliver({ type: "response", id: frame.id, command: type, success: false, error, code });
	}

	/** The connection ends (after opening: a drop; before: a refusal, explained by `refusal` if set). */
	drop(code = 1006, reason = ""): void {
		this.readyState = 3;
		this.onclose?.({ code, reason } as never);
	}
}

/** Lets pending promise callbacks run. */
export function settle(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}
