/**
 * The /ws send path writes whole frames, encoded once per event and batched per tick (frame-batch.ts). A client
 * that keeps up must still get every event as a text frame of its own, in order and unmerged, whatever the
 * frame's length; many followers must each get the whole stream; and the close frame of a cut-off comes last.
 */
import assert from "node:assert/strict";
import { setImmediate as nextTurn } from "node:timers/promises";
import { afterEach, test } from "node:test";
import { type ListenerHarness, PRIMARY_SESSION, startHarness } from "../support/listener-harness.js";
import { TestClient } from "../support/ws-client.js";

let harness: ListenerHarness | undefined;
const clients: TestClient[] = [];

afterEach(async () => {
	for (const client of clients.splice(0)) client.socket.terminate();
	await harness?.close();
	harness = undefined;
});

async function follower(): Promise<TestClient> {
	const client = await TestClient.connect(harness!.wsUrl);
	clients.push(client);
	await client.ok({ type: "subscribe", sessionId: PRIMARY_SESSION });
	return client;
}

const deltasOf = (client: TestClient) => client.events.filter((e) => e.type === "message_update").map((e) => e.assistantMessageEvent.delta as string);

test("a client that keeps up gets every event as a text frame of its own, in order, unmerged, at every frame length", async () => {
	harness = await startHarness();
	const client = await follower();
	const sent: string[] = [];
	// Bursts of 100 deltas a tick (each burst leaves in one write) with frames of every length form between them.
	for (let burst = 0; burst < 30; burst++) {
		for (let i = 0; i < 100; i++) sent.push(`${burst}.${i}é🚀 `);
		sent.push("x".repeat([200, 70_000, 3][burst % 3]!));
		for (const text of sent.slice(-101)) harness.publishDelta(PRIMARY_SESSION, text);
		await client.waitForEvent((e) => e.assistantMessageEvent?.delta === sent.at(-1), 15_000, 0);
		await nextTurn();
	}
	harness.publish(PRIMARY_SESSION, { type: "agent_end" });
	await client.waitForEvent((e) => e.type === "agent_end");
	assert.deepEqual(deltasOf(client), sent, "every delta, each its own event, in order");
	const seqs = client.events.map((e) => e.seq as number);
	assert.ok(
		seqs.every((seq, i) => i === 0 || seq === seqs[i - 1]! + 1),
		"consecutive seqs: nothing merged or lost",
	);
	assert.equal(client.frames.length, client.events.length + 1, "one frame per event (and the subscribe response)");
});

test("twenty followers of one stream each get the whole text in order", async () => {
	harness = await startHarness();
	const followers = await Promise.all(Array.from({ length: 20 }, () => follower()));
	let text = "";
	for (let i = 0; i < 3000; i++) {
		const piece = String.fromCharCode(97 + (i % 26));
		text += piece;
		harness.publishDelta(PRIMARY_SESSION, piece);
		if (i % 200 === 199) await nextTurn();
	}
	harness.publish(PRIMARY_SESSION, { type: "agent_end" });
	for (const client of followers) {
		await client.waitForEvent((e) => e.type === "agent_end", 30_000);
		assert.equal(deltasOf(client).join(""), text);
		const seqs = client.events.map((e) => e.seq as number);
		assert.ok(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!), "seq keeps increasing");
	}
});

test("what a cut-off client was handed before the cut still precedes its close frame", async () => {
	harness = await startHarness({ limits: { clientQueueMessages: 8, cutOffGraceMs: 30_000 } });
	const client = await follower();
	const socket = (client.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
	socket.pause();
	// Alternating content blocks never merge: the queue passes its message cap within this one tick.
	for (let i = 0; i < 2000 && !harness.logs.some((l) => /cut off/.test(l)); i++) harness.publishDelta(PRIMARY_SESSION, "y".repeat(4096), i % 2);
	assert.match(await harness.waitForLog(/cut off/), /not reading/);
	socket.resume();
	const closed = await client.waitForClose(30_000);
	assert.deepEqual(closed, { code: 1008, reason: "client is not reading messages" });
	const seqs = client.events.map((e) => e.seq as number);
	assert.ok(client.events.length > 0, "the frames handed over before the cut arrived");
	assert.ok(
		seqs.every((seq, i) => i === 0 || seq === seqs[i - 1]! + 1),
		"in order, none missing before the close frame",
	);
});
