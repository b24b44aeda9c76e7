/** The socket index.html opens early: taken over by the client's first connection when it fits, else closed. */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { withEarlySocket } from "../../../web/src/state/early-socket.js";

const URL_WS = "ws://127.0.0.1:8787/ws";

/** A socket as the browser's: its url resolved, handlers as properties, close recorded. */
class FakeSocket {
	static made: FakeSocket[] = [];
	readyState = 0;
	closed = false;
	onopen: ((event: Event) => void) | null = null;
	onmessage: ((event: Event) => void) | null = null;
	onerror: ((event: Event) => void) | null = null;
	onclose: ((event: Event) => void) | null = null;
	readonly url: string;
	constructor(
		url: string,
		readonly protocols: string[] = [],
	) {
		this.url = new URL(url).href;
		FakeSocket.made.push(this);
	}
	send(): void {}
	close(): void {
		this.closed = true;
	}
}

const globals = globalThis as Record<string, unknown>;

beforeEach(() => {
	FakeSocket.made = [];
	globals.window = globalThis;
	globals.WebSocket = FakeSocket;
});
afterEach(() => {
	delete globals.window;
	delete globals.WebSocket;
	delete globals.skiffSocket;
});

/** What index.html leaves behind: a socket, the protocols it asked for, and the events it heard. */
function early(protocols: string[], events: Event[] = []): FakeSocket {
	const socket = new FakeSocket(URL_WS, protocols);
	globals.skiffSocket = { socket, protocols, events };
	return socket;
}

test("the first connection to the same place with the same token takes the early socket, and hears what it said", async () => {
	const socket = early(["skiff-auth.abc"], [new Event("open")]);
	const Socket = withEarlySocket();
	const taken = new Socket(URL_WS, ["skiff-auth.abc"]) as unknown as FakeSocket;
	assert.equal(taken, socket);
	const heard: string[] = [];
	taken.onopen = (event) => heard.push(event.type); // the client sets its handlers right after
	await Promise.resolve();
	assert.deepEqual(heard, ["open"]);
	assert.equal(FakeSocket.made.length, 1, "no second socket");
	// Later connections (a reconnect) make their own.
	const again = new Socket(URL_WS, ["skiff-auth.abc"]) as unknown as FakeSocket;
	assert.notEqual(again, socket);
	assert.equal(FakeSocket.made.length, 2);
});

test("an early socket that closed before the script ran is reported closed to the client", async () => {
	const closed = Object.assign(new Event("close"), { code: 1006, reason: "" });
	early([], [closed]);
	const taken = new (withEarlySocket())(URL_WS, []) as unknown as FakeSocket;
	let code: number | undefined;
	taken.onclose = (event) => (code = (event as Event & { code: number }).code);
	await Promise.resolve();
	assert.equal(code, 1006);
});

test("an early socket for another token, or another place, is closed and a new one made", () => {
	const other = early(["skiff-auth.old"]);
	const made = new (withEarlySocket())(URL_WS, ["skiff-auth.new"]) as unknown as FakeSocket;
	assert.notEqual(made, other);
	assert.equal(other.closed, true);
	assert.deepEqual(made.protocols, ["skiff-auth.new"]);

	const elsewhere = early([]);
	const there = new (withEarlySocket())("ws://127.0.0.1:9999/ws", []) as unknown as FakeSocket;
	assert.notEqual(there, elsewhere);
	assert.equal(elsewhere.closed, true);
});

test("without an early socket (a guest's page, or storage refused) a new one is made", () => {
	const made = new (withEarlySocket())(URL_WS) as unknown as FakeSocket;
	assert.equal(FakeSocket.made.length, 1);
	assert.equal(made.url, URL_WS);
});
