/**
 * Clients that stop reading: they must not delay anyone else, a client that is only behind gets every byte
 * of text (fewer, larger deltas), and one that is too far behind is cut off with 1008. The listener runs in
 * this process with small limits; a paused TCP socket stands for the client that stopped reading.
 */
import assert from "node:assert/strict";
import { setImmediate as nextTurn } from "node:timers/promises";
import { afterEach, test } from "node:test";
import { type ListenerHarness, PRIMARY_SESSION, startHarness } from "../support/listener-harness.js";
import { TestClient } from "../support/ws-client.js";

/** Big deltas fill the kernel's socket buffers (a few MB on loopback) quickly; past them the listener queues. */
const DELTA = "x".repeat(16 * 1024);
/** Upper bound on what a test publishes before the condition it waits for must have happened. */
const MAX_EVENTS = 8192;

let harness: ListenerHarness | undefined;
const clients: TestClient[] = [];

afterEach(async () => {
	for (const client of clients.splice(0)) client.socket.terminate();
	await harness?.close();
	harness = undefined;
});

async function connect(sessions: string[] = [PRIMARY_SESSION]): Promise<TestClient> {
	const client = await TestClient.connect(harness!.wsUrl);
	clients.push(client);
	for (const sessionId of sessions) await client.ok({ type: "subscribe", sessionId });
	return client;
}

/** The client's TCP socket stops (or resumes) reading: the kernel buffers fill, then the server must queue. */
function setReading(client: TestClient, reading: boolean): void {
	const socket = (client.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
	if (reading) socket.resume();
	else socket.pause();
}

/** The client's own port, which the listener's log names. */
function localPort(client: TestClient): number {
	return (client.socket as unknown as { _socket: { localPort: number } })._socket.localPort;
}

/** Publishes `publishOne(i)` in small batches, letting the server write between them, until `done()`. */
async function publishUntil(done: () => boolean, publishOne: (i: number) => void): Promise<number> {
	let i = 0;
	while (!done() && i < MAX_EVENTS) {
		for (let batch = 0; batch < 16; batch++) publishOne(i++);
		await nextTurn();
	}
	return i;
}

const textOf = (client: TestClient, sessionId = PRIMARY_SESSION) =>
	client.events
		.filter((e) => e.sessionId === sessionId && e.type === "message_update")
		.map((e) => e.assistantMessageEvent.delta)
		.join("");

test("a client that is behind gets every byte of text in fewer, larger deltas, and others are served meanwhile", async () => {
	harness = await startHarness({ limits: { clientQueueBytes: 256 * 1024 * 1024, totalQueuedBytes: 512 * 1024 * 1024 } });
	const bystander = await connect([]);
	const slow = await connect();
	setReading(slow, false);
	const published = 1500; // about 24 MB of text: far more than the kernel buffers hold
	await publishUntil(() => false, (i) => i < published && harness!.publishDelta(PRIMARY_SESSION, DELTA));
	harness.publish(PRIMARY_SESSION, { type: "agent_end" });
	assert.equal((await bystander.request({ type: "ping" })).success, true, "another client is answered while one is stuck");

	setReading(slow, true);
	await slow.waitForEvent((e) => e.type === "agent_end", 30_000);
	const updates = slow.events.filter((e) => e.type === "message_update");
	assert.equal(textOf(slow).length, published * DELTA.length, "no text lost");
	assert.ok(updates.length < published, `deltas were merged (${updates.length} events for ${published} deltas)`);
	const seqs = slow.events.map((e) => e.seq);
	assert.ok(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!), "seq keeps increasing");
	assert.equal(seqs.at(-1), published + 1, "the last event merged gives its seq");
	assert.equal(slow.closed, undefined, "a client that is only behind stays connected");
});

test("a client beyond the per-client byte cap is cut off with 1008, and others are unaffected", async () => {
	harness = await startHarness({ limits: { clientQueueBytes: 1024 * 1024, cutOffGraceMs: 30_000 } });
	const bystander = await connect();
	const slow = await connect();
	const slowPort = localPort(slow);
	setReading(slow, false);
	const cut = () => harness!.logs.some((l) => /cut off/.test(l));
	await publishUntil(cut, () => harness!.publishDelta(PRIMARY_SESSION, DELTA));
	const line = await harness.waitForLog(/cut off/);
	assert.match(line, new RegExp(`:${slowPort}\\b`), "the log names the client cut off");
	assert.match(line, /not reading/);
	assert.equal((await bystander.request({ type: "ping" })).success, true);

	setReading(slow, true);
	const closed = await slow.waitForClose(30_000);
	assert.deepEqual(closed, { code: 1008, reason: "client is not reading messages" });
	assert.equal(bystander.closed, undefined);
});

test("a client beyond the per-client message cap is cut off too (deltas of alternating blocks do not merge)", async () => {
	harness = await startHarness({ limits: { clientQueueMessages: 50, cutOffGraceMs: 30_000 } });
	const slow = await connect();
	setReading(slow, false);
	const cut = () => harness!.logs.some((l) => /cut off/.test(l));
	await publishUntil(cut, (i) => harness!.publishDelta(PRIMARY_SESSION, DELTA.slice(0, 4096), i % 2));
	assert.match(await harness.waitForLog(/cut off/), /not reading/);
	setReading(slow, true);
	assert.equal((await slow.waitForClose(30_000)).code, 1008);
});

test("over the total cap, the client furthest behind is cut first; the others keep all their text", async () => {
	harness = await startHarness({
		limits: { clientQueueBytes: 256 * 1024 * 1024, totalQueuedBytes: 2 * 1024 * 1024, cutOffGraceMs: 30_000 },
	});
	const far = await connect([PRIMARY_SESSION, "other"]); // follows two sessions: twice the traffic, and no merging
	const near = await connect([PRIMARY_SESSION]);
	const farPort = localPort(far);
	setReading(far, false);
	setReading(near, false);
	const cut = () => harness!.logs.some((l) => /cut off/.test(l));
	let primaryDeltas = 0;
	await publishUntil(cut, (i) => {
		if (i % 2 === 0) {
			harness!.publishDelta(PRIMARY_SESSION, DELTA);
			primaryDeltas++;
		} else harness!.publishDelta("other", DELTA);
	});
	assert.equal(harness.logs.filter((l) => /cut off/.test(l)).length, 1, "one client cut");
	assert.match(harness.logs.find((l) => /cut off/.test(l))!, new RegExp(`:${farPort}\\b`));
	harness.publish(PRIMARY_SESSION, { type: "agent_end" });

	setReading(near, true);
	setReading(far, true);
	assert.equal((await far.waitForClose(30_000)).code, 1008);
	await near.waitForEvent((e) => e.type === "agent_end", 30_000);
	assert.equal(textOf(near).length, primaryDeltas * DELTA.length, "the client kept has lost nothing");
	assert.equal(near.closed, undefined);
});
