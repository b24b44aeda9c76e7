import assert from "node:assert/strict";
import { test } from "node:test";
import { canCoalesce, coalesce, mergeableDelta, type WireEvent } from "../../../src/protocol/coalesce.js";

const delta = (seq: number, text: string, kind = "text_delta", contentIndex = 0, sessionId = "s1"): WireEvent => ({
	type: "message_update",
	sessionId,
	seq,
	assistantMessageEvent: { type: kind, contentIndex, delta: text },
});

test("consecutive deltas of one block merge into one event with the last seq and the concatenated text", () => {
	for (const kind of ["text_delta", "thinking_delta", "toolcall_delta"]) {
		const a = delta(4, "Hel", kind, 2);
		const b = delta(5, "lo", kind, 2);
		assert.equal(canCoalesce(a, b), true, kind);
		const merged = coalesce(a, b);
		assert.deepEqual(merged, delta(5, "Hello", kind, 2), kind);
		assert.deepEqual(Object.keys(merged), ["type", "sessionId", "seq", "assistantMessageEvent"], "wire field order kept");
		assert.deepEqual(a, delta(4, "Hel", kind, 2), "the inputs are not modified");
		assert.deepEqual(b, delta(5, "lo", kind, 2));
	}
	const three = coalesce(coalesce(delta(1, "a"), delta(2, "b")), delta(3, "c"));
	assert.deepEqual(three, delta(3, "abc"));
});

test("anything else never merges: other blocks, kinds, sessions, events, or a seq going back", () => {
	const a = delta(1, "x");
	assert.equal(canCoalesce(a, delta(2, "y", "text_delta", 1)), false, "another content block");
	assert.equal(canCoalesce(a, delta(2, "y", "thinking_delta")), false, "another kind of delta");
	assert.equal(canCoalesce(a, delta(2, "y", "text_delta", 0, "s2")), false, "another session");
	assert.equal(canCoalesce(delta(5, "x"), delta(3, "y")), false, "seq must increase");
	const start: WireEvent = { type: "message_update", sessionId: "s1", seq: 2, assistantMessageEvent: { type: "text_start", contentIndex: 0 } };
	assert.equal(canCoalesce(a, start), false);
	assert.equal(canCoalesce(start, a), false);
	assert.equal(canCoalesce(a, { type: "agent_end", sessionId: "s1", seq: 2 }), false);
	assert.equal(canCoalesce(a, { type: "message_update", sessionId: "s1", seq: 2 }), false, "no sub-event");
	const numeric: WireEvent = { type: "message_update", sessionId: "s1", seq: 2, assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: 7 } };
	assert.equal(canCoalesce(a, numeric), false, "a delta that is not text");
});

test("mergeableDelta names the text an event would add", () => {
	assert.equal(mergeableDelta(delta(1, "abc")), "abc");
	assert.equal(mergeableDelta({ type: "agent_start", sessionId: "s1", seq: 1 }), undefined);
});
