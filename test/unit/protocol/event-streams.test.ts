import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionObserver } from "../../../src/agent/types.js";
import { EventStreams } from "../../../src/protocol/event-streams.js";

function runtimeStub() {
	let observer: SessionObserver | undefined;
	return {
		observe(o: SessionObserver) {
			observer = o;
			return () => (observer = undefined);
		},
		send: (...args: Parameters<SessionObserver>) => observer?.(...args),
	};
}

test("runtime signals become numbered wire events: shaped, per session, with session_unloaded from the protocol layer", () => {
	const runtime = runtimeStub();
	const streams = new EventStreams(runtime);
	const wire: string[] = [];
	streams.hub("a").subscribe((p) => wire.push(p.json));
	runtime.send("a", { kind: "event", event: { type: "agent_start" } });
	runtime.send("b", { kind: "event", event: { type: "agent_start" } });
	runtime.send("a", { kind: "event", event: { type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "hi", partial: { big: true } } } });
	runtime.send("a", { kind: "unloaded", reason: "evicted" });
	runtime.send("a", { kind: "event", event: { type: "agent_start" } });
	assert.deepEqual(
		wire.map((j) => JSON.parse(j)),
		[
			{ type: "agent_start", sessionId: "a", seq: 1 },
			{ type: "message_update", sessionId: "a", seq: 2, assistantMessageEvent: { type: "text_delta", delta: "hi" } },
			{ type: "session_unloaded", sessionId: "a", seq: 3, reason: "evicted" },
			{ type: "agent_start", sessionId: "a", seq: 4 },
		],
	);
	assert.equal(streams.hub("b").seq, 1);
	assert.equal(streams.hub("a").since(2), undefined, "the replay window is dropped with the session");
});

test("the hub of an unloaded session nobody follows is dropped; the session keeps counting when it comes back", () => {
	const runtime = runtimeStub();
	const streams = new EventStreams(runtime);
	for (let i = 0; i < 1000; i++) {
		runtime.send(`s${i}`, { kind: "event", event: { type: "agent_start" } });
		runtime.send(`s${i}`, { kind: "unloaded", reason: "evicted" });
	}
	assert.equal(streams.hubCount, 0, "nothing is held for sessions that are gone");
	runtime.send("s7", { kind: "event", event: { type: "agent_start" } });
	assert.equal(streams.hub("s7").seq, 3);

	const followed = streams.hub("f");
	const unfollow = followed.subscribe(() => undefined);
	runtime.send("f", { kind: "unloaded", reason: "closed" });
	assert.equal(streams.hub("f"), followed, "a followed hub stays while someone listens");
	unfollow();
	assert.equal(streams.hubCount, 1, "and goes when the last follower leaves");
});

test("pi's deltas of one turn reach followers as one event; with merging off, one event each", async () => {
	for (const mergeDeltas of [undefined, false]) {
		const runtime = runtimeStub();
		const streams = new EventStreams(runtime, mergeDeltas === undefined ? {} : { mergeDeltas });
		const wire: Array<Record<string, unknown>> = [];
		streams.hub("a").subscribe((p) => wire.push(JSON.parse(p.json)));
		const update = (delta: string) => ({ type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta, partial: { big: true } } });
		for (const text of ["on", "e ", "turn"]) runtime.send("a", { kind: "event", event: update(text) });
		runtime.send("a", { kind: "event", event: { type: "message_end", message: { role: "assistant" } } });
		await new Promise((resolve) => setImmediate(resolve));
		const deltas = wire.filter((e) => e.type === "message_update").map((e) => (e.assistantMessageEvent as { delta: string }).delta);
		assert.deepEqual(deltas, mergeDeltas === false ? ["on", "e ", "turn"] : ["one turn"]);
		assert.deepEqual(
			wire.map((e) => e.seq),
			wire.map((_, i) => i + 1),
		);
		assert.equal(wire.at(-1)!.type, "message_end", "the end comes after the text");
	}
});
