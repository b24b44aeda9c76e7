/** Raw TCP connections to a listener, for requests no HTTP client would send: half-sent, repeated or malformed headers. */
import { connect, type Socket } from "node:net";

export interface RawConnection {
	readonly socket: Socket;
	/** Everything the server sent so far. */
	received(): string;
	/** Resolves when the server closed (or reset) the connection. */
	readonly closed: Promise<void>;
	isClosed(): boolean;
}

/** Resolves once at most `count` of `connections` are still open. */
export function atMostOpen(connections: RawConnection[], count: number): Promise<void> {
	return new Promise((resolve) => {
		const check = () => {
			if (connections.filter((c) => !c.isClosed()).length <= count) resolve();
		};
		for (const connection of connections) connection.closed.then(check);
		check();
	});
}

/** Connects to `url`'s host and port, from `localAddress` when given (any 127.x.y.z works on Linux). */
export function openRaw(url: string, localAddress?: string): Promise<RawConnection> {
	const { hostname, port } = new URL(url);
	return new Promise((resolve, reject) => {
		const socket = connect({ host: hostname, port: Number(port), localAddress });
		let received = "";
		socket.setEncoding("latin1");
		socket.on("data", (chunk: string) => (received += chunk));
		let isClosed = false;
		const closed = new Promise<void>((done) =>
			socket.once("close", () => {
				isClosed = true;
				done();
			}),
		);
		socket.once("error", reject);
		socket.once("connect", () => {
			socket.off("error", reject);
			socket.on("error", () => undefined); // a reset is how some refusals end
			resolve({ socket, received: () => received, closed, isClosed: () => isClosed });
		});
	});
}

/** Sends `request` on a fresh connection and resolves with everything the server sent before closing. */
export async function rawRequest(url: string, request: string): Promise<string> {
	const connection = await openRaw(url);
	connection.socket.end(request);
	await connection.closed;
	return connection.received();
}

/** The status code of the first response line of `text`, or 0 when there is none. */
export function statusOf(text: string): number {
	const match = /^HTTP\/1\.[01] (\d{3})/.exec(text);
	return match ? Number(match[1]) : 0;
}
