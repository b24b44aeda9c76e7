import assert from "node:assert/strict";
import { test } from "node:test";
import { EventHub } from "../../../src/protocol/event-hub.js";

test("events get increasing seq, sessionId, and one shared JSON text", () => {
	const hub = new EventHub("s1");
	const seen: string[] = [];
	hub.subscribe((p) => seen.push(p.json));
	const a = hub.publish({ type: "agent_start" });
	const b = hub.publish({ type: "agent_end", sessionId: "spoofed", seq: 99 });
	assert.equal(a.seq, 1);
	assert.equal(b.seq, 2);
	assert.deepEqual(JSON.parse(seen[1]!), { type: "agent_end", sessionId: "s1", seq: 2 });
	assert.equal(hub.seq, 2);
});

test("since() replays exactly the missed events, or says they are gone", () => {
	const hub = new EventHub("s1", { maxEvents: 3, maxBytes: 1 << 20 });
	for (let i = 0; i < 5; i++) hub.publish({ type: "e", i });
	assert.deepEqual(hub.since(5), []);
	assert.deepEqual(hub.since(3)!.map((p) => p.seq), [4, 5]);
	assert.deepEqual(hub.since(2)!.map((p) => p.seq), [3, 4, 5]);
	assert.equal(hub.since(1), undefined, "event 2 was dropped from the window");
});

test("the replay window is bounded by bytes and survives compaction", () => {
	const hub = new EventHub("s1", { maxEvents: 100_000, maxBytes: 10_000 });
	for (let i = 0; i < 5000; i++) hub.publish({ type: "e", pad: "x".repeat(50) });
	const kept = hub.since(4900)!;
	assert.deepEqual(kept.map((p) => p.seq).slice(0, 2), [4901, 4902]);
	assert.equal(hub.since(0), undefined);
	hub.forgetReplay();
	assert.equal(hub.since(4999), undefined);
	assert.equal(hub.publish({ type: "after" }).seq, 5001, "seq keeps counting after the window is dropped");
});
