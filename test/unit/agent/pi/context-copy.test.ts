/** The conversation is handed to the model call as it is, unless an extension's `context` handler may change it. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentSession } from "@mariozechner/pi-coding-agent";
import { copyContextOnlyForHandlers } from "../../../../src/agent/pi/context-copy.js";

function fakeSession(handlers: boolean) {
	const copies: unknown[][] = [];
	const agent = {
		transformContext: async (messages: unknown[]) => {
			const copy = structuredClone(messages);
			copies.push(copy);
			return copy;
		},
	};
	const session = { agent, hasExtensionHandlers: (type: string) => handlers && type === "context" } as unknown as AgentSession;
	copyContextOnlyForHandlers(session);
	return { transform: agent.transformContext as (messages: unknown[]) => Promise<unknown[]>, copies };
}

test("without a context handler the messages go on as they are: no copy of the conversation per model call", async () => {
	const { transform, copies } = fakeSession(false);
	const messages = [{ role: "user", content: "hi" }];
	assert.equal(await transform(messages), messages);
	assert.equal(copies.length, 0);
});

test("with a context handler pi's copy (and the handlers) still run", async () => {
	const { transform, copies } = fakeSession(true);
	const messages = [{ role: "user", content: "hi" }];
	const result = await transform(messages);
	assert.notEqual(result, messages);
	assert.deepEqual(result, messages);
	assert.equal(copies.length, 1);
});
