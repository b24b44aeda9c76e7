/**
 * Features see a tool call before it runs (`beforeToolCall`): several features' looks run in order, and one
 * that fails never keeps the others from theirs nor fails the call.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionFeatures, ToolCallStart } from "../../../src/agent/types.js";
import { combineSessionFeatures } from "../../../src/features/session-features.js";

function part(onCall?: (call: ToolCallStart) => Promise<void>): SessionFeatures {
	return { tools: [], activeToolNames: () => [], contextForPrompt: async () => undefined, ...(onCall ? { beforeToolCall: onCall } : {}) };
}

test("every feature's look runs, in order, whatever one of them does", async () => {
	const seen: string[] = [];
	const combined = combineSessionFeatures([
		part(async (call) => {
			seen.push(`first ${call.toolName}`);
			throw new Error("broken");
		}),
		part(),
		part(async (call) => {
			seen.push(`third ${String(call.input.path)}`);
		}),
	]);
	await combined.beforeToolCall!({ toolName: "edit", toolCallId: "c1", input: { path: "a.txt" } });
	assert.deepEqual(seen, ["first edit", "third a.txt"]);
});
