/** A streaming update reaches pi's extension path only when an extension has a handler for it; other events always do. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentSession } from "@mariozechner/pi-coding-agent";
import { emitStreamingEventsOnlyToHandlers } from "../../../../src/agent/pi/extension-events.js";

function fakeSession(handled: string[]) {
	const emitted: string[] = [];
	const session = {
		turnIndex: 0,
		hasExtensionHandlers: (type: string) => handled.includes(type),
		async _emitExtensionEvent(this: { turnIndex: number }, event: { type: string }) {
			if (event.type === "turn_end") this.turnIndex++; // pi keeps state here: `this` must stay the session
			emitted.push(event.type);
		},
	};
	emitStreamingEventsOnlyToHandlers(session as unknown as AgentSession);
	const emit = (type: string) => session._emitExtensionEvent({ type });
	return { session, emit, emitted };
}

test("without a handler, message and tool updates skip the extensions; every other event still goes through pi's path", async () => {
	const { session, emit, emitted } = fakeSession([]);
	for (const type of ["agent_start", "turn_start", "message_start", "message_update", "message_update", "message_end", "tool_execution_update", "turn_end", "agent_end"]) await emit(type);
	assert.deepEqual(emitted, ["agent_start", "turn_start", "message_start", "message_end", "turn_end", "agent_end"]);
	assert.equal(session.turnIndex, 1, "pi's own state, kept on the session, still counts the turn");
});

test("an extension that handles an update gets every one of them, asked anew at each event", async () => {
	const handled: string[] = ["message_update"];
	const { emit, emitted } = fakeSession(handled);
	await emit("message_update");
	await emit("tool_execution_update");
	handled.push("tool_execution_update"); // a reload added a handler
	await emit("tool_execution_update");
	assert.deepEqual(emitted, ["message_update", "tool_execution_update"]);
});

test("a session without pi's method is left alone", () => {
	const session = { hasExtensionHandlers: () => false };
	emitStreamingEventsOnlyToHandlers(session as unknown as AgentSession);
	assert.deepEqual(Object.keys(session), ["hasExtensionHandlers"]);
});

test("pi's AgentSession still has the method this replaces (else the saving would silently be lost)", async () => {
	const { AgentSession } = await import("@mariozechner/pi-coding-agent");
	assert.equal(typeof (AgentSession.prototype as unknown as Record<string, unknown>)._emitExtensionEvent, "function");
});
