import assert from "node:assert/strict";
import { test } from "node:test";
import { createEventShaper } from "../../../src/protocol/event-shape.js";

test("a text delta keeps only type, contentIndex and delta", () => {
	const shape = createEventShaper();
	const partial = { role: "assistant", content: [{ type: "text", text: "Hello wor" }] };
	const shaped = shape({
		type: "message_update",
		message: partial,
		assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "wor", partial },
	});
	assert.deepEqual(shaped, { type: "message_update", assistantMessageEvent: { type: "text_delta", delta: "wor" } }, "block 0 leaves contentIndex out");
	for (const kind of ["thinking_delta", "toolcall_delta"]) {
		const s = shape({ type: "message_update", message: partial, assistantMessageEvent: { type: kind, contentIndex: 1, delta: "d", partial } });
		assert.deepEqual(s, { type: "message_update", assistantMessageEvent: { type: kind, contentIndex: 1, delta: "d" } });
	}
});

test("non-delta stream events drop the partial message", () => {
	const shape = createEventShaper();
	const partial = { role: "assistant", content: [] };
	const shaped = shape({ type: "message_update", message: partial, assistantMessageEvent: { type: "text_end", contentIndex: 0, content: "hi", partial } });
	assert.deepEqual(shaped, { type: "message_update", assistantMessageEvent: { type: "text_end", contentIndex: 0, content: "hi" } });
});

test("a block's start carries no streamed content, so text that follows in deltas never shows twice", () => {
	const shape = createEventShaper();
	// By the time pi's event is shaped, its partial message may already hold the text of the next deltas.
	const partial = { role: "assistant", content: [{ type: "text", text: "Hel" }, { type: "toolCall", id: "call_1", name: "bash", arguments: { command: "l" } }] };
	const textStart = shape({ type: "message_update", message: partial, assistantMessageEvent: { type: "text_start", contentIndex: 0, partial } });
	assert.deepEqual(textStart, { type: "message_update", assistantMessageEvent: { type: "text_start", contentIndex: 0 } });
	const toolStart = shape({ type: "message_update", message: partial, assistantMessageEvent: { type: "toolcall_start", contentIndex: 1, partial } });
	assert.deepEqual(toolStart, { type: "message_update", assistantMessageEvent: { type: "toolcall_start", contentIndex: 1, id: "call_1", name: "bash" } });
	partial.content[1]!.name = "changed later";
	assert.equal((toolStart!.assistantMessageEvent as { name: string }).name, "bash", "copied at event time");
});

test("cumulative tool output becomes deltas until it stops extending", () => {
	const shape = createEventShaper();
	const update = (text: string) => shape({ type: "tool_execution_update", toolCallId: "c1", toolName: "bash", args: { command: "x" }, partialResult: { content: [{ type: "text", text }] } });
	assert.deepEqual(update("a\n"), { type: "tool_execution_update", toolCallId: "c1", toolName: "bash", partialResult: { content: [{ type: "text", text: "a\n" }] } });
	assert.deepEqual(update("a\nb\n"), { type: "tool_execution_update", toolCallId: "c1", toolName: "bash", outputDelta: "b\n" });
	const truncated = update("b\nc\n");
	assert.ok(truncated && "partialResult" in truncated, "a truncated tail is sent whole");
});

test("display:false messages and other events pass through untouched", () => {
	const shape = createEventShaper();
	const event = { type: "message_end", message: { role: "custom", customType: "memory", content: "x", display: false } };
	assert.deepEqual(shape(event), event);
	assert.deepEqual(shape({ type: "agent_end", messages: [1, 2, 3] }), { type: "agent_end", messageCount: 3 });
	assert.deepEqual(shape({ type: "turn_end", message: {}, toolResults: [] }), { type: "turn_end" });
});

test("a tool's images are bounded as a user message's: tool_execution_end carries no data, its message_end up to the event budget", () => {
	const shape = createEventShaper();
	const data = Buffer.alloc(3000, 1).toString("base64");
	const result = { content: [{ type: "text", text: "Read image file [image/png]" }, { type: "image", mimeType: "image/png", data }], details: {} };
	const ended = shape({ type: "tool_execution_end", toolCallId: "c1", toolName: "read", result, isError: false }) as unknown as { result: typeof result };
	assert.deepEqual(ended.result.content[1], { type: "image", mimeType: "image/png", data: "", omittedBytes: 3000 });
	assert.equal(ended.result.content[0], result.content[0]);
	assert.equal(result.content[1]!.data, data, "the runtime's own result is untouched");
	const message = { role: "toolResult", toolCallId: "c1", toolName: "read", content: result.content, isError: false, timestamp: 1 };
	assert.deepEqual((shape({ type: "message_start", message }) as unknown as { message: typeof message }).message.content[1], ended.result.content[1]);
	assert.equal(shape({ type: "message_end", message })!.message, message, "one small image fits the event's budget");
	const text = { type: "tool_execution_end", toolCallId: "c2", toolName: "bash", result: { content: [{ type: "text", text: "ok" }] }, isError: false };
	assert.equal(shape(text), text, "a result without images passes as it is");
});
