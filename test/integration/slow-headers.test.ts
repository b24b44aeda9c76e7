/**
 * Connections that send part of their headers and stall: they get the documented header deadline, and
 * however many there are, other clients (from the same address or another, with a token or without) are
 * still served.
 */
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { afterEach, test } from "node:test";
import { postRpc } from "../support/http.js";
import { type ListenerHarness, startHarness } from "../support/listener-harness.js";
import { atMostOpen, openRaw, type RawConnection, statusOf } from "../support/raw-http.js";
import { TestClient } from "../support/ws-client.js";

const TOKEN = "slow-headers-token";
const HALF_SENT = "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl";

let harness: ListenerHarness | undefined;
const stalled: RawConnection[] = [];

afterEach(async () => {
	for (const connection of stalled.splice(0)) connection.socket.destroy();
	await harness?.close();
	harness = undefined;
});

/** Opens `count` connections from `localAddress` that send half their headers and then nothing. */
async function stall(count: number, localAddress = "127.0.0.1"): Promise<RawConnection[]> {
	const opened: RawConnection[] = [];
	for (let i = 0; i < count; i++) {
		const connection = await openRaw(harness!.url, localAddress);
		connection.socket.write(HALF_SENT);
		opened.push(connection);
		stalled.push(connection);
	}
	return opened;
}

test("a connection that does not finish its headers gets 408 at the header deadline", { timeout: 10_000 }, async () => {
	harness = await startHarness({ limits: { headersTimeoutMs: 200 } });
	const [slow] = await stall(1);
	await slow!.closed;
	assert.equal(statusOf(slow!.received()), 408);
	const quiet = await openRaw(harness.url); // connects and sends nothing at all
	stalled.push(quiet);
	await quiet.closed;
	assert.equal(statusOf(quiet.received()), 408);
});

test("300 stalled connections from the client's own address do not lock it out", { timeout: 20_000 }, async () => {
	harness = await startHarness({ limits: { maxPendingPerAddress: 8, maxPendingTotal: 32 } });
	const slow = await stall(300);
	const response = await postRpc(harness.url, { type: "ping" });
	assert.equal(response.status, 200);
	const client = await TestClient.connect(harness.wsUrl);
	assert.equal((await client.request({ type: "ping" })).success, true);
	client.close();
	await Promise.all(slow.slice(0, 300 - 8).map((c) => c.closed)); // the oldest stalled connections were dropped
});

test("stalled connections from many addresses are bounded in total; a client with the token is served", { timeout: 20_000 }, async () => {
	harness = await startHarness({
		auth: { loopback: true, token: TOKEN },
		limits: { maxPendingPerAddress: 8, maxPendingTotal: 16 },
	});
	const slow = [...(await stall(40, "127.0.0.2")), ...(await stall(40, "127.0.0.3")), ...(await stall(40, "127.0.0.4"))];
	await atMostOpen(slow, 16); // no more than the total cap wait for their headers
	const response = await postRpc(harness.url, { type: "ping" }, { Authorization: `Bearer ${TOKEN}` });
	assert.equal(response.status, 200);
	const client = await TestClient.connect(harness.wsUrl, { protocols: [`skiff-auth.${TOKEN}`] });
	assert.equal((await client.request({ type: "ping" })).success, true);
	client.close();
});

/** Every way of stalling before the headers end: half a request line, half the headers, half an upgrade, nothing, idle keep-alive. */
const STALLS = [
	"GET /we",
	HALF_SENT,
	"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Ver",
	"",
	"GET /web HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", // answered, then idle on a keep-alive connection
	"GET /web HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /we", // answered, then half of the next request
];
/** Slack past the header deadline for the timers to fire and the closes to travel (docs/security.md). */
const CLOSE_GRACE_MS = 1_000;

test("300 half-open connections from several addresses are all closed within the header deadline", { timeout: 20_000 }, async () => {
	const headersTimeoutMs = 300;
	// Caps above the connection count, so that every connection waits for the deadline rather than being evicted.
	harness = await startHarness({ limits: { headersTimeoutMs, maxPendingPerAddress: 1_000, maxPendingTotal: 1_000 } });
	const opened: RawConnection[] = [];
	for (let i = 0; i < 300; i++) {
		const connection = await openRaw(harness.url, `127.0.0.${2 + (i % 5)}`);
		connection.socket.write(STALLS[i % STALLS.length]!);
		opened.push(connection);
		stalled.push(connection);
	}
	await new Promise((resolve) => setTimeout(resolve, headersTimeoutMs + CLOSE_GRACE_MS));
	const stillOpen = opened.filter((c) => !c.isClosed());
	assert.equal(stillOpen.length, 0, `${stillOpen.length} of 300 still open: ${stillOpen.slice(0, 3).map((c) => JSON.stringify(c.received().slice(0, 40)))}`);
});

test("a stalled client that never reads learns of the close only when it reads the 408 the server sent", { timeout: 10_000 }, async () => {
	const headersTimeoutMs = 200;
	harness = await startHarness({ limits: { headersTimeoutMs } });
	const { port } = new URL(harness.url);
	const quiet: Socket[] = [];
	for (let i = 0; i < 5; i++) {
		const socket = connect({ host: "127.0.0.1", port: Number(port) }); // no 'data' listener: the socket never reads
		socket.on("error", () => undefined);
		socket.once("connect", () => socket.write(HALF_SENT));
		quiet.push(socket);
	}
	await new Promise((resolve) => setTimeout(resolve, headersTimeoutMs + CLOSE_GRACE_MS));
	// The server closed them all at the deadline, but a socket that reads nothing reaches its end of stream only
	// once the 408 before it is read: counted from such a client, they look open (this is what the stress count saw).
	assert.equal(quiet.filter((socket) => !socket.closed).length, quiet.length, "unread, they still look open");
	const closes = quiet.map((socket) => new Promise<string>((resolve) => {
		let received = "";
		socket.setEncoding("latin1");
		socket.on("data", (chunk: string) => (received += chunk));
		socket.once("close", () => resolve(received));
	}));
	const answers = await Promise.all(closes); // reading now: each one ends at once
	for (const answer of answers) assert.equal(statusOf(answer), 408);
});

test("requests that stall in their body are closed at the request deadline, not up to node's 30 s check later", { timeout: 10_000 }, async () => {
	const requestTimeoutMs = 400;
	harness = await startHarness({ limits: { requestTimeoutMs } });
	const opened: RawConnection[] = [];
	for (let i = 0; i < 20; i++) {
		const connection = await openRaw(harness.url, `127.0.0.${2 + (i % 5)}`);
		connection.socket.write('POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{"ty');
		opened.push(connection);
		stalled.push(connection);
	}
	await new Promise((resolve) => setTimeout(resolve, requestTimeoutMs + CLOSE_GRACE_MS));
	assert.equal(opened.filter((c) => !c.isClosed()).length, 0);
	for (const connection of opened) assert.equal(statusOf(connection.received()), 408);
});
