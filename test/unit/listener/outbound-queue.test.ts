import assert from "node:assert/strict";
import { test } from "node:test";
import { type Backlog, OutboundBudget, OutboundQueue, type OutboundSink } from "../../../src/listener/outbound-queue.js";
import { MAX_CLIENT_QUEUE_BYTES, MAX_CLIENT_QUEUE_MESSAGES } from "../../../src/listener/limits.js";
import { EventHub, REPLAY_MAX_BYTES, REPLAY_MAX_EVENTS } from "../../../src/protocol/event-hub.js";

/** A socket that has written nothing out until `drain()` says so. */
class HeldSink implements OutboundSink {
	readonly written: string[] = [];
	private readonly pending: Array<(error?: Error) => void> = [];
	write(text: string, done: (error?: Error) => void): void {
		this.written.push(text);
		this.pending.push(done);
	}
	/** Completes every write so far (which may hand over more). */
	drain(): void {
		while (this.pending.length > 0) this.pending.shift()!();
	}
	fail(): void {
		this.pending.shift()!(new Error("socket gone"));
	}
	get events(): any[] {
		return this.written.map((t) => JSON.parse(t));
	}
}

const LIMITS = { maxMessages: 100, maxBytes: 100_000, highWaterBytes: 1 };

function setup(limits = LIMITS, budget = new OutboundBudget(1 << 30)) {
	const sink = new HeldSink();
	const cut: Backlog[] = [];
	const queue = new OutboundQueue(sink, limits, budget, (backlog) => cut.push(backlog));
	return { sink, queue, cut, budget };
}

const hub = () => new EventHub("s1");
const delta = (h: EventHub, text: string, contentIndex = 0) =>
	h.publish({ type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex, delta: text } });

test("a client that keeps up gets every message as it comes, nothing merged", () => {
	const { sink, queue } = setup({ ...LIMITS, highWaterBytes: 1 << 20 });
	const h = hub();
	for (const text of ["a", "b", "c"]) delta(h, text);
	queue.push(delta(h, "a"));
	queue.push(delta(h, "b"));
	queue.push('{"type":"response"}');
	assert.equal(sink.written.length, 3);
	assert.equal(queue.queuedMessages, 0);
});

test("while the socket does not drain, messages wait; consecutive deltas of one block merge, order is kept", () => {
	const { sink, queue, budget } = setup();
	const h = hub();
	queue.push(h.publish({ type: "message_start" })); // handed over: the socket now holds more than the high water
	for (const text of ["He", "ll", "o"]) queue.push(delta(h, text));
	queue.push('{"type":"response","id":"r"}');
	queue.push(delta(h, " wor"));
	queue.push(delta(h, "ld"));
	queue.push(delta(h, "!", 1)); // another content block: not merged
	queue.push(h.publish({ type: "message_end" }));
	assert.equal(sink.written.length, 1);
	assert.equal(queue.queuedMessages, 5);
	assert.ok(budget.queuedBytes > 0 && budget.queuedBytes === queue.queuedBytes);

	for (let i = 0; i < 10; i++) sink.drain(); // one message is handed over per drain (high water 1 byte)
	assert.deepEqual(
		sink.events.map((e) => [e.type, e.seq ?? e.id, e.assistantMessageEvent?.delta]),
		[
			["message_start", 1, undefined],
			["message_update", 4, "Hello"],
			["response", "r", undefined],
			["message_update", 6, " world"],
			["message_update", 7, "!"],
			["message_end", 8, undefined],
		],
	);
	assert.equal(queue.queuedBytes, 0);
	assert.equal(budget.queuedBytes, 0);
});

test("while merging is paused (a command in flight) nothing merges, and what waited before is sealed", () => {
	const { sink, queue } = setup();
	const h = hub();
	queue.push(h.publish({ type: "message_start" }));
	queue.push(delta(h, "a"));
	queue.pauseMerging(true); // a command starts: it may snapshot at seq 2
	queue.push(delta(h, "b"));
	queue.push(delta(h, "c"));
	queue.push('{"type":"response","id":"get"}');
	queue.pauseMerging(false);
	queue.push(delta(h, "d"));
	queue.push(delta(h, "e"));
	for (let i = 0; i < 10; i++) sink.drain();
	assert.deepEqual(
		sink.events.map((e) => e.assistantMessageEvent?.delta ?? e.id ?? e.type),
		["message_start", "a", "b", "c", "get", "de"],
	);
});

test("beyond the message cap the queue is dropped and the owner told, once", () => {
	const { sink, queue, cut, budget } = setup({ ...LIMITS, maxMessages: 3 });
	const h = hub();
	queue.push(h.publish({ type: "a" }));
	for (let i = 0; i < 3; i++) queue.push(delta(h, "x", i)); // three blocks: three messages waiting
	assert.equal(cut.length, 0);
	queue.push(h.publish({ type: "b" }));
	assert.deepEqual(cut, [{ messages: 4, bytes: cut[0]!.bytes }]);
	assert.equal(queue.isClosed, true);
	assert.equal(queue.queuedMessages, 0);
	assert.equal(budget.queuedBytes, 0);
	queue.push(h.publish({ type: "c" }));
	sink.drain();
	assert.equal(sink.written.length, 1, "nothing more is written once cut off");
	assert.equal(cut.length, 1);
});

test("beyond the byte cap the queue is dropped too, merged deltas counted by their text", () => {
	const { queue, cut } = setup({ ...LIMITS, maxBytes: 1200 });
	const h = hub();
	queue.push(h.publish({ type: "a" }));
	queue.push(delta(h, "x".repeat(500)));
	queue.push(delta(h, "y".repeat(400)));
	assert.equal(queue.queuedMessages, 1);
	assert.equal(cut.length, 0);
	queue.push(delta(h, "z".repeat(200)));
	assert.equal(cut.length, 1);
	assert.ok(cut[0]!.bytes > 1200);
});

test("over the shared budget the queue furthest behind is cut first", () => {
	const budget = new OutboundBudget(3000);
	const near = setup(LIMITS, budget);
	const far = setup(LIMITS, budget);
	const h = hub();
	for (const { queue } of [near, far]) queue.push(h.publish({ type: "first" }));
	far.queue.push(h.publish({ type: "pad", text: "f".repeat(2000) }));
	near.queue.push(h.publish({ type: "pad", text: "n".repeat(900) }));
	assert.deepEqual([near.cut.length, far.cut.length], [0, 0]);
	near.queue.push(h.publish({ type: "pad", text: "n".repeat(200) })); // the total passes 3000: `far` holds more
	assert.deepEqual([near.cut.length, far.cut.length], [0, 1]);
	assert.equal(budget.queuedBytes, near.queue.queuedBytes);
});

test("a write that fails closes the queue quietly; closing drops what waits", () => {
	const { sink, queue, cut, budget } = setup();
	const h = hub();
	queue.push(h.publish({ type: "a" }));
	queue.push(h.publish({ type: "b" }));
	sink.fail();
	assert.equal(queue.isClosed, true);
	assert.deepEqual(cut, [], "a failed write is the socket going away, not a slow client");
	assert.equal(budget.queuedBytes, 0);
});

test("a full replay window fits in one client's queue", () => {
	assert.ok(MAX_CLIENT_QUEUE_MESSAGES > REPLAY_MAX_EVENTS);
	assert.ok(MAX_CLIENT_QUEUE_BYTES > REPLAY_MAX_BYTES);
});

test("a long run of merged deltas reaches a client behind whole and in order, as one event with the run's last seq", () => {
	const { sink, queue } = setup({ ...LIMITS, maxMessages: 10 });
	const h = hub();
	queue.push(h.publish({ type: "message_start" })); // the socket now holds more than the high water
	let text = "";
	for (let i = 0; i < 5000; i++) {
		const piece = String.fromCharCode(97 + (i % 26));
		text += piece;
		queue.push(delta(h, piece));
	}
	assert.equal(queue.queuedMessages, 1, "one waiting event for the whole run");
	assert.ok(queue.queuedBytes < 5000 + 200, "merged deltas counted by their text (the first by its JSON)");
	sink.drain();
	const merged = sink.events[1];
	assert.equal(merged.assistantMessageEvent.delta, text);
	assert.equal(merged.seq, h.seq);
	assert.deepEqual(Object.keys(merged), ["type", "sessionId", "seq", "assistantMessageEvent"], "the wire's field order");
});

test("drained() resolves once nothing waits and the socket has written what it was handed, or once the queue closes", async () => {
	const { sink, queue } = setup();
	let settled = false;
	await queue.drained(); // nothing sent: at once
	queue.push('"a"'); // handed to the socket, not written yet
	queue.push('"b"'); // waits in the queue
	const first = queue.drained().then(() => (settled = true));
	await new Promise((resolve) => setImmediate(resolve));
	assert.equal(settled, false, "still waiting: one message in the socket, one in the queue");
	sink.drain(); // writes "a", then "b" handed over meanwhile
	await first;
	assert.deepEqual(sink.written, ['"a"', '"b"']);
	queue.push('"c"');
	const second = queue.drained();
	queue.close();
	await second; // a closed queue sends nothing more: nobody waits for it
});
