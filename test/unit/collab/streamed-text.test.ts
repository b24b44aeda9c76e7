/**
 * One guest's streams (src/collab/streamed-text.ts), on events as the service shapes them: what is sent, what
 * waits for the end, and what is never streamed to a guest.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { StreamedText } from "../../../src/collab/streamed-text.js";
import type { WireEvent } from "../../../src/protocol/coalesce.js";

let seq = 0;
const event = (fields: Record<string, unknown>) => ({ sessionId: "s", seq: ++seq, ...fields }) as unknown as WireEvent;
const update = (part: Record<string, unknown>) => event({ type: "message_update", assistantMessageEvent: part });
const fields = (shown: WireEvent | undefined) => shown as unknown as Record<string, any> | undefined;

test("events without streamed text pass as they are, shared by every guest", () => {
	const streams = new StreamedText();
	for (const e of [event({ type: "agent_start" }), event({ type: "queue_update", steering: [], followUp: [] }), update({ type: "text_start", contentIndex: 0 })]) {
		assert.equal(streams.event(e), e);
	}
});

test("a delta carries what became safe; nothing is sent while nothing did; the end carries the rest", () => {
	const streams = new StreamedText();
	streams.event(update({ type: "thinking_start", contentIndex: 1 }));
	assert.equal(streams.event(update({ type: "thinking_delta", contentIndex: 1, delta: "sk-ant-" })), undefined, "the unfinished key waits");
	const later = fields(streams.event(update({ type: "thinking_delta", contentIndex: 1, delta: "api03-Zq8vK2mXp4Lr7Tn1Wb5 is it" })));
	assert.equal(later?.assistantMessageEvent.delta, "[REDACTED] is ");
	const end = fields(streams.event(update({ type: "thinking_end", contentIndex: 1, content: "whole" })));
	assert.deepEqual(end?.assistantMessageEvent, { type: "thinking_end", contentIndex: 1, content: "whole", delta: "it" });
});

test("a delta of a block not seen from its start, and a tool call's arguments, are never streamed", () => {
	const streams = new StreamedText();
	assert.equal(streams.event(update({ type: "text_delta", delta: "npm_a1B2c3D4e5F6 " })), undefined);
	streams.event(update({ type: "toolcall_start", contentIndex: 0, id: "c", name: "bash" }));
	assert.equal(streams.event(update({ type: "toolcall_delta", delta: '{"command":"echo hi" ' })), undefined);
	const end = update({ type: "toolcall_end", contentIndex: 0, toolCall: { type: "toolCall", id: "c", name: "bash", arguments: { command: "echo hi" } } });
	assert.equal(streams.event(end), end);
});

test("a snapshot's streaming message shows what is safe so far, and its streams go on from there", () => {
	const streams = new StreamedText();
	const seeded = streams.seed({
		role: "assistant",
		content: [
			{ type: "thinking", thinking: "use the key hf_QwErTyUiOp12" },
			{ type: "text", text: "Here: npm_a1B2c3D4e5F6g7H8i9" },
			{ type: "toolCall", id: "c", name: "bash", arguments: { command: "echo ghp_R8tY2uI5oP1aS4dF", nested: [{ deep: "token: abc" }] } },
		],
	}) as { content: Array<Record<string, unknown>> };
	assert.deepEqual(seeded.content, [
		{ type: "thinking", thinking: "use the key " },
		{ type: "text", text: "Here: " },
		{ type: "toolCall", id: "c", name: "bash", arguments: { command: "echo ", nested: [{ deep: "" }] } },
	]);
	const next = fields(streams.event(update({ type: "text_delta", contentIndex: 1, delta: "J0k1L2m3N4o5P6q7R8 done" })));
	assert.equal(next?.assistantMessageEvent.delta, "[REDACTED] ");
	const user = { role: "user", content: "hi" };
	assert.equal(streams.seed(user), user, "only an assistant message streams");
});

test("tool output: the first whole output starts the stream, deltas follow it; a later whole output (pi's tail) ends it", () => {
	const streams = new StreamedText();
	streams.event(event({ type: "tool_execution_start", toolCallId: "t", toolName: "bash", args: {} }));
	const first = fields(streams.event(event({ type: "tool_execution_update", toolCallId: "t", toolName: "bash", partialResult: { content: [{ type: "text", text: "a b sk-" }] } })));
	assert.deepEqual(first?.partialResult.content, [{ type: "text", text: "a b " }]);
	const delta = fields(streams.event(event({ type: "tool_execution_update", toolCallId: "t", toolName: "bash", outputDelta: "proj-4fG7hJ2kL9mN3pQ6rS8t\nnext" })));
	assert.equal(delta?.outputDelta, "[REDACTED]\n");
	const end = fields(streams.event(event({ type: "tool_execution_end", toolCallId: "t", toolName: "bash", result: { content: [] }, isError: false })));
	assert.equal(end?.outputDelta, "next");

	streams.event(event({ type: "tool_execution_start", toolCallId: "u", toolName: "bash", args: {} }));
	streams.event(event({ type: "tool_execution_update", toolCallId: "u", toolName: "bash", partialResult: { content: [{ type: "text", text: "x " }] } }));
	assert.equal(streams.event(event({ type: "tool_execution_update", toolCallId: "u", toolName: "bash", partialResult: { content: [{ type: "text", text: "2mXp4Lr7 y " }] } })), undefined);
	assert.equal(streams.event(event({ type: "tool_execution_update", toolCallId: "u", toolName: "bash", outputDelta: "z " })), undefined);
	const closed = event({ type: "tool_execution_end", toolCallId: "u", toolName: "bash", result: { content: [] }, isError: false });
	assert.equal(streams.event(closed), closed, "its result comes whole");
});

test("output with images comes whole each time, its text as far as it is safe; a capped shell update is sent even when empty", () => {
	const streams = new StreamedText();
	streams.event(event({ type: "tool_execution_start", toolCallId: "i", toolName: "shot", args: {} }));
	const image = { type: "image", data: "AAAA", mimeType: "image/png" };
	const shown = fields(streams.event(event({ type: "tool_execution_update", toolCallId: "i", toolName: "shot", partialResult: { content: [{ type: "text", text: "saved with AKIAQW3E" }, image] } })));
	assert.deepEqual(shown?.partialResult.content, [{ type: "text", text: "saved with " }, image]);

	streams.event(event({ type: "bash_execution_start", command: "cat" }));
	const capped = fields(streams.event(event({ type: "bash_execution_update", outputDelta: "unfinished", capped: true })));
	assert.deepEqual([capped?.outputDelta, capped?.capped], ["", true]);
	assert.equal(fields(streams.event(event({ type: "bash_execution_end", queued: false })))?.outputDelta, "unfinished");
	assert.equal(streams.event(event({ type: "bash_execution_update", outputDelta: "after the end " })), undefined, "no shell runs");
});

test("deeply nested partial arguments are cut at the guests' depth, not followed", () => {
	let deep: unknown = "ghp_R8tY2uI5oP1aS4dF7gH0jK3lZ6xC9vB2nM5q";
	for (let i = 0; i < 10_000; i++) deep = { deep };
	const seeded = new StreamedText().seed({ role: "assistant", content: [{ type: "toolCall", id: "c", name: "x", arguments: deep }] });
	assert.ok(!JSON.stringify(seeded).includes("ghp_"));
});
