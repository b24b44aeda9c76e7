/**
 * Connections that send part of their headers and stall: they get the documented header deadline, and
 * however many there are, other clients (from the same address or another, with a token or without) are
 * still served.
 */
import assert from "node:assert/strict";
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
