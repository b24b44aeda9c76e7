/**
 * The features' additions to a tool result's details (pi's `tool_result` hook): merged into the tool's own
 * details, never replacing them nor the content; a feature that fails adds nothing and the others still add;
 * details that are not an object (a custom tool's string) are left as they are.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { featureHooks } from "../../../../src/agent/pi/extensions.js";
import { TurnStartAbort } from "../../../../src/agent/pi/turn-start.js";
import type { SessionFeatures } from "../../../../src/agent/types.js";
import { combineSessionFeatures } from "../../../../src/features/session-features.js";

const part = (toolResultDetails: SessionFeatures["toolResultDetails"]): SessionFeatures => ({ tools: [], activeToolNames: () => [], contextForPrompt: async () => undefined, toolResultDetails });

/** The `tool_result` handler the features' extension registers. */
function toolResultHandler(features: SessionFeatures): (event: Record<string, unknown>) => Promise<unknown> {
	const handlers = new Map<string, (event: Record<string, unknown>) => Promise<unknown>>();
	const pi = { on: (name: string, handler: (event: Record<string, unknown>) => Promise<unknown>) => handlers.set(name, handler) };
	featureHooks([], features, new TurnStartAbort())(pi as never);
	return handlers.get("tool_result")!;
}

const event = (details: unknown) => ({ type: "tool_result", toolName: "write", toolCallId: "c1", input: { path: "a" }, content: [{ type: "text", text: "ok" }], isError: false, details });

test("additions merge into the tool's own details; a failing feature adds nothing and the others still do", async () => {
	const features = combineSessionFeatures([
		part(async () => ({ diff: "--- a\n" })),
		part(async () => {
			throw new Error("broken");
		}),
		part(async (call) => (call.isError ? undefined : { seen: call.toolCallId })),
	]);
	const handler = toolResultHandler(features);
	assert.deepEqual(await handler(event({ firstChangedLine: 2 })), { details: { firstChangedLine: 2, diff: "--- a\n", seen: "c1" } });
	assert.deepEqual(await handler(event(undefined)), { details: { diff: "--- a\n", seen: "c1" } });
	assert.equal(await handler(event("a custom tool's string")), undefined, "details that are not an object are left alone");
	assert.equal(await handler(event(["a", "list"])), undefined);
});

test("nothing to add leaves the result untouched", async () => {
	const handler = toolResultHandler(combineSessionFeatures([part(async () => undefined), part(undefined)]));
	assert.equal(await handler(event({ diff: "pi's" })), undefined);
});
