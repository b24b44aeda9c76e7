/** The server pings every WebSocket client and drops the ones that stop answering (dead peers). */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import WebSocket from "ws";
import { type ListenerHarness, startHarness } from "../support/listener-harness.js";
import { TestClient } from "../support/ws-client.js";

let harness: ListenerHarness;

before(async () => {
	harness = await startHarness({ limits: { heartbeatIntervalMs: 50, cutOffGraceMs: 5_000 } });
});
after(() => harness.close());

test("a client that does not answer pings is closed with 1008; one that answers stays", { timeout: 10_000 }, async () => {
	const alive = await TestClient.connect(harness.wsUrl);
	const mute = new WebSocket(harness.wsUrl, { autoPong: false });
	const pinged = new Promise<void>((resolve) => mute.once("ping", () => resolve()));
	const closed = new Promise<{ code: number; reason: string }>((resolve) =>
		mute.once("close", (code, reason) => resolve({ code, reason: reason.toString() })),
	);
	await pinged;
	assert.deepEqual(await closed, { code: 1008, reason: "client did not answer ping" });
	assert.match(await harness.waitForLog(/did not answer ping/), /cut off/);
	assert.equal((await alive.request({ type: "ping" })).success, true);
	assert.equal(alive.closed, undefined, "a client that answers pings stays connected");
	alive.close();
});
