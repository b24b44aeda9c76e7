/** Removing one waiting message from pi's two parallel queues (the texts it reports, the messages it delivers). */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentSession } from "@mariozechner/pi-coding-agent";
import { removeQueued } from "../../../../src/agent/pi/message-queue.js";

const message = (text: string) => ({ role: "user", content: [{ type: "text", text }, { type: "image", data: "AAAA", mimeType: "image/png" }], timestamp: 1 });

/** pi's queue state: `texts` reported, `queued` still in the agent's queue (the tail of the texts). */
function session(texts: string[], queued: string[]) {
	const state = {
		_steeringMessages: [...texts],
		_followUpMessages: [] as string[],
		agent: { steeringQueue: { messages: queued.map(message) }, followUpQueue: { messages: [] as unknown[] } },
	};
	return { state, session: state as unknown as AgentSession };
}

test("removes the message from both queues; the others keep their order and their images", () => {
	const { state, session: s } = session(["a", "b", "c"], ["a", "b", "c"]);
	assert.equal(removeQueued(s, "steering", 1), "b");
	assert.deepEqual(state._steeringMessages, ["a", "c"]);
	assert.deepEqual(state.agent.steeringQueue.messages, [message("a"), message("c")]);
});

test("a message the agent already took (not yet announced) cannot be cancelled; past the end is not found", () => {
	const { state, session: s } = session(["a", "b", "c"], ["b", "c"]);
	assert.throws(() => removeQueued(s, "steering", 0), /The steering message at index 0 is being delivered already/);
	assert.equal(removeQueued(s, "steering", 2), "c", "the tail lines up");
	assert.deepEqual(state.agent.steeringQueue.messages, [message("b")]);
	assert.throws(() => removeQueued(s, "steering", 2), /No steering message at index 2: 2 waiting/);
	assert.throws(() => removeQueued(s, "followUp", 0), /No follow-up message at index 0: 0 waiting/);
});

test("pi internals that changed shape fail loudly instead of corrupting the queue", () => {
	assert.throws(() => removeQueued({} as AgentSession, "steering", 0), /internals changed/);
});
