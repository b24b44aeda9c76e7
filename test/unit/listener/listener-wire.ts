/**
 * A real listener in the test process (no agent behind it: fake sessions, any id resolving, their files not on
 * disk; optionally collaboration rooms) and raw HTTP/1.x exchanges with it, parsed into status, headers and body.
 * The listener tests pin what goes on the wire, so they write requests byte for byte (repeated headers,
 * HTTP/1.0, no Host) and read answers the same way.
 */
import { CollabRooms } from "../../../src/collab/rooms.js";
import type { AuthPolicy } from "../../../src/listener/auth.js";
import type { ListenerLimits } from "../../../src/listener/limits.js";
import { type Listener, startListener } from "../../../src/listener/server.js";
import { CommandRegistry } from "../../../src/protocol/command.js";
import { streamCommands } from "../../../src/protocol/commands/stream.js";
import { createDispatcher } from "../../../src/protocol/dispatch.js";
import { EventStreams } from "../../../src/protocol/event-streams.js";
import { runtimeOfAnyId } from "../../support/fake-agent.js";
import { openRaw } from "../../support/raw-http.js";

export const PAGE_TITLE = "<title>wire test page</title>";
/** A well-formed room id that names no room. */
export const UNKNOWN_ROOM = "AAAAAAAAAAAAAAAAAAAAAA";
export const UPGRADE_HEADERS = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";

export interface WireListener {
	readonly listener: Listener;
	readonly url: string;
	/** `127.0.0.1:<port>`, the Host a same-origin client sends. */
	readonly host: string;
	readonly logs: string[];
	/** The collaboration rooms, when asked for. */
	readonly rooms?: CollabRooms;
	close(): Promise<void>;
}

export async function startWireListener(
	options: { auth?: AuthPolicy; collab?: boolean; limits?: Partial<ListenerLimits>; now?: () => number } = {},
): Promise<WireListener> {
	const { runtime } = await runtimeOfAnyId("primary");
	const streams = new EventStreams({ observe: () => () => undefined });
	const dispatcher = createDispatcher(new CommandRegistry().register(...streamCommands), { runtime, streams });
	const logs: string[] = [];
	const rooms = options.collab ? new CollabRooms({ linkOrigin: () => "http://127.0.0.1:1" }) : undefined;
	const listener = await startListener({
		host: "127.0.0.1",
		port: 0,
		auth: options.auth ?? { loopback: true },
		dispatcher,
		web: { kind: "embedded", html: `<!doctype html>${PAGE_TITLE}` },
		limits: options.limits,
		now: options.now,
		log: (line) => logs.push(line),
		collab: rooms,
	});
	const host = `127.0.0.1:${listener.address.port}`;
	return { listener, url: `http://${host}`, host, logs, rooms, close: () => listener.close() };
}

export interface WireAnswer {
	status: number;
	/** Header names in lower case; a repeated header's values joined with ", ". */
	headers: Record<string, string>;
	body: string;
	/** Everything the server sent. */
	raw: string;
}

/** Sends `request` as written on a fresh connection (from `localAddress` when given) and parses the first answer. */
export async function exchange(url: string, request: string, localAddress?: string): Promise<WireAnswer> {
	const connection = await openRaw(url, localAddress);
	connection.socket.write(request);
	// A 101 leaves the connection open: what came before the end of its header block is the whole answer.
	const raw = await new Promise<string>((resolve) => {
		const check = () => {
			const text = connection.received();
			if (/^HTTP\/1\.1 101 /.test(text) && text.includes("\r\n\r\n")) resolve(text);
		};
		connection.socket.on("data", check);
		connection.closed.then(() => resolve(connection.received()));
	});
	connection.socket.destroy();
	return parseAnswer(raw);
}

export function parseAnswer(raw: string): WireAnswer {
	const end = raw.indexOf("\r\n\r\n");
	const [statusLine, ...lines] = (end < 0 ? raw : raw.slice(0, end)).split("\r\n");
	const headers: Record<string, string> = {};
	for (const line of lines) {
		const colon = line.indexOf(":");
		const name = line.slice(0, colon).trim().toLowerCase();
		const value = line.slice(colon + 1).trim();
		headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
	}
	const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1] ?? 0);
	const body = end < 0 ? "" : raw.slice(end + 4);
	return { status, headers, body: headers["transfer-encoding"] === "chunked" ? unchunk(body) : body, raw };
}

/** A chunked body's content (chunk sizes are in bytes; the text is latin1, one character a byte). */
function unchunk(chunked: string): string {
	let out = "";
	let at = 0;
	for (;;) {
		const lineEnd = chunked.indexOf("\r\n", at);
		const size = lineEnd < 0 ? 0 : Number.parseInt(chunked.slice(at, lineEnd), 16);
		if (!size) return Buffer.from(out, "latin1").toString("utf8");
		out += chunked.slice(lineEnd + 2, lineEnd + 2 + size);
		at = lineEnd + 2 + size + 2;
	}
}

/** An HTTP/1.1 request for `path` that closes its connection, with extra header lines (each ending in CRLF). */
export function request(method: string, path: string, host: string | undefined, extra = "", body = ""): string {
	const hostLine = host === undefined ? "" : `Host: ${host}\r\n`;
	const length = body ? `Content-Length: ${Buffer.byteLength(body)}\r\n` : "";
	return `${method} ${path} HTTP/1.1\r\n${hostLine}${length}${extra}Connection: close\r\n\r\n${body}`;
}

/** A WebSocket opening handshake for `path` (GET over HTTP/1.1 unless told otherwise). */
export function upgrade(path: string, host: string | undefined, extra = "", method = "GET", version = "1.1"): string {
	const hostLine = host === undefined ? "" : `Host: ${host}\r\n`;
	return `${method} ${path} HTTP/${version}\r\n${hostLine}${UPGRADE_HEADERS}${extra}\r\n`;
}

/** The routes that admit before they serve: /rpc, /export, /ws, and a guest's /collab/ws/<roomId>. */
export type AdmittedRoute = "rpc" | "export" | "ws" | "guest";

/**
 * A request to `route` with extra header lines (Host first, unless `host` is undefined): a ping to /rpc, a
 * download, or an upgrade (a guest's to `roomId`, a room that does not exist unless told otherwise).
 */
export function admittedRequest(route: AdmittedRoute, host: string | undefined, extra: string, roomId = UNKNOWN_ROOM): string {
	if (route === "rpc") return request("POST", "/rpc", host, `Content-Type: application/json\r\n${extra}`, '{"type":"ping"}');
	if (route === "export") return request("GET", "/export/some-session.jsonl", host, extra);
	return upgrade(route === "ws" ? "/ws" : `/collab/ws/${roomId}`, host, extra);
}

/**
 * Client addresses no case of a test file has used yet, from 127.0.0.1 on (any 127.x.y.z works on Linux),
 * so that one case's failures are counted against no other's.
 */
export function freshAddresses(): () => string {
	let next = 10;
	return () => `127.0.${Math.floor(next / 250)}.${(next++ % 250) + 1}`;
}
