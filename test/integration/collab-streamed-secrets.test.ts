/**
 * Secrets that stream to collaboration guests (the real listener and relay, events published straight into
 * the session's stream): every secret shape redactSecrets knows, streamed in small pieces as reply text,
 * thinking, a tool call's arguments, a tool's output and the user's shell output, never reaches a view guest,
 * not in one frame and not in all of them joined; a block's deltas join to exactly the redacted whole text
 * (a tool call's arguments come whole, parsed, at its end).
 * A guest that joins mid-stream gets only what is safe so far, and no stream it did not see from its start.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { redactSecrets } from "../../src/shared/redact.js";
import { type CollabHarness, PRIMARY_SESSION, startCollabHarness } from "../support/collab-harness.js";
import { type HostMessage, RawGuest } from "../support/collab-guest.js";
import { Prng } from "../support/prng.js";
import { leaks, SECRET_SHAPES, type SecretShape } from "../support/secret-shapes.js";
import { TestClient } from "../support/ws-client.js";

let harness: CollabHarness;
let host: TestClient;
let guest: RawGuest;

beforeEach(async () => {
	harness = await startCollabHarness();
	host = await TestClient.connect(harness.wsUrl);
});

afterEach(async () => {
	guest?.socket.terminate();
	host.socket.terminate();
	await harness.close();
});

type Event = { type: string; [key: string]: unknown };
const publish = (event: Event) => harness.publish(PRIMARY_SESSION, event);
const assistant = (content: unknown[]) => ({ role: "assistant", content, provider: "fake", model: "fake-model", stopReason: "stop", timestamp: 1 });

/** Publishes one stream of `pieces` of `whole` as `kind`; returns what the guest's deltas of it must join to. */
function publishStream(kind: string, whole: string, pieces: string[]): void {
	const update = (part: Record<string, unknown>) => publish({ type: "message_update", assistantMessageEvent: part });
	if (kind === "text" || kind === "thinking") {
		publish({ type: "message_start", message: assistant([]) });
		update({ type: `${kind}_start`, contentIndex: 0 });
		for (const delta of pieces) update({ type: `${kind}_delta`, delta });
		update({ type: `${kind}_end`, contentIndex: 0, content: whole });
		publish({ type: "message_end", message: assistant([kind === "text" ? { type: "text", text: whole } : { type: "thinking", thinking: whole }]) });
	} else if (kind === "tool call") {
		publish({ type: "message_start", message: assistant([]) });
		update({ type: "toolcall_start", contentIndex: 0, id: "call_1", name: "bash" });
		for (const delta of pieces) update({ type: "toolcall_delta", delta });
		const toolCall = { type: "toolCall", id: "call_1", name: "bash", arguments: JSON.parse(whole) };
		update({ type: "toolcall_end", contentIndex: 0, toolCall });
		publish({ type: "message_end", message: assistant([toolCall]) });
	} else if (kind === "tool output") {
		publish({ type: "tool_execution_start", toolCallId: "call_2", toolName: "bash", args: { command: "cat key" } });
		// pi sends the whole output so far every time; the service sends on only what is new (event-shape.ts).
		let sofar = "";
		publish({ type: "tool_execution_update", toolCallId: "call_2", toolName: "bash", partialResult: { content: [{ type: "text", text: sofar }] } });
		for (const piece of pieces) {
			sofar += piece;
			publish({ type: "tool_execution_update", toolCallId: "call_2", toolName: "bash", partialResult: { content: [{ type: "text", text: sofar }] } });
		}
		publish({ type: "tool_execution_end", toolCallId: "call_2", toolName: "bash", result: { content: [{ type: "text", text: whole }] }, isError: false });
	} else {
		publish({ type: "bash_execution_start", command: "cat key" });
		for (const outputDelta of pieces) publish({ type: "bash_execution_update", outputDelta });
		const message = { role: "bashExecution", command: "cat key", output: whole, exitCode: 0, cancelled: false, truncated: false, timestamp: 1 };
		publish({ type: "bash_execution_end", message, queued: false });
	}
	publish({ type: "agent_end", messageCount: 0 });
}

/** The streamed text of one kind that the guest's frames carry: each delta, the part held to the end included. */
function streamedText(kind: string, frames: HostMessage[]): string {
	let text = "";
	for (const frame of frames) {
		if (frame.type === "message_update" && typeof frame.assistantMessageEvent.delta === "string") text += frame.assistantMessageEvent.delta;
		if (kind === "tool output" && frame.type === "tool_execution_update") text += frame.outputDelta ?? frame.partialResult.content[0].text;
		if (frame.type === "tool_execution_end" || frame.type.startsWith("bash_execution")) text += frame.outputDelta ?? "";
	}
	return text;
}

const KINDS = ["text", "thinking", "tool call", "tool output", "shell"] as const;

/** A stream's whole text for a secret: the arguments' JSON text for a tool call. */
function wholeText(kind: string, shape: SecretShape): string {
	const text = `Here it is: ${shape.text}\nkeep it safe.`;
	return kind === "tool call" ? JSON.stringify({ command: `printf '%s' '${text}'` }) : text;
}

test("a view guest never gets a secret streamed in small pieces, as text, thinking, tool call, tool output or shell output", async () => {
	const room = await host.ok({ type: "collab_start" });
	guest = await RawGuest.join(room.viewLink);
	let runs = 0;
	for (const shape of SECRET_SHAPES) {
		for (const kind of KINDS) {
			for (const seed of [0, 1, 2]) {
				const whole = wholeText(kind, shape);
				// Seed 0: three characters at a time; else 1 to 5 at random.
				const pieces = seed === 0 ? (whole.match(/[\s\S]{1,3}/g) ?? []) : new Prng(runs + 1).pieces(whole, 5);
				const from = guest.messages.length;
				publishStream(kind, whole, pieces);
				await guest.waitForMessage((m) => m.type === "agent_end", from);
				const frames = guest.messages.slice(from);
				for (const frame of frames) assert.deepEqual(leaks(JSON.stringify(frame), [shape]), [], `${shape.name} as ${kind}, seed ${seed}: a frame`);
				if (kind !== "tool call") assert.equal(streamedText(kind, frames), redactSecrets(whole), `${shape.name} as ${kind}, seed ${seed}: the deltas join to the redacted whole`);
				else {
					// Arguments stream as JSON text, where quotes are escaped: guests get them parsed, at the end.
					assert.equal(streamedText(kind, frames), "", "no argument deltas");
					const end = frames.find((m) => m.type === "message_update" && m.assistantMessageEvent.type === "toolcall_end")!;
					assert.equal(end.assistantMessageEvent.toolCall.arguments.command, redactSecrets(JSON.parse(whole).command));
				}
				runs++;
			}
		}
	}
	assert.equal(runs, SECRET_SHAPES.length * KINDS.length * 3);
});

test("a guest joining mid-stream gets only what is safe so far, then the rest; no stream it did not see from its start", async () => {
	const whole = "Use sk-ant-api03-Zq8vK2mXp4Lr7Tn1Wb5Yc9Hd3Fg6Js0AeUo to log in.";
	const cut = whole.indexOf("mXp4");
	const anthropic = SECRET_SHAPES.find((s) => s.name === "Anthropic key")!;
	// The reply so far ends inside the key; a tool already printing a key started before the guest came.
	publish({ type: "message_start", message: assistant([]) });
	publish({ type: "message_update", assistantMessageEvent: { type: "text_start", contentIndex: 0 } });
	publish({ type: "message_update", assistantMessageEvent: { type: "text_delta", delta: whole.slice(0, cut) } });
	harness.streaming.set(PRIMARY_SESSION, assistant([{ type: "text", text: whole.slice(0, cut) }]));
	publish({ type: "tool_execution_start", toolCallId: "early", toolName: "bash", args: {} });
	publish({ type: "tool_execution_update", toolCallId: "early", toolName: "bash", partialResult: { content: [{ type: "text", text: "key: sk-ant-api03-Zq8v" }] } });
	const room = await host.ok({ type: "collab_start" });
	guest = await RawGuest.join(room.viewLink);
	const snapshot = guest.messages.find((m) => m.type === "collab_snapshot")!;
	assert.deepEqual(snapshot.streaming.content, [{ type: "text", text: "Use " }], "the unfinished key waits");

	const from = guest.messages.length;
	for (const delta of whole.slice(cut).match(/.{1,3}/g)!) publish({ type: "message_update", assistantMessageEvent: { type: "text_delta", delta } });
	publish({ type: "tool_execution_update", toolCallId: "early", toolName: "bash", partialResult: { content: [{ type: "text", text: "key: sk-ant-api03-Zq8vK2mXp4Lr7Tn1Wb5Yc9Hd3Fg6Js0AeUo\n" }] } });
	publish({ type: "message_update", assistantMessageEvent: { type: "text_end", contentIndex: 0, content: whole } });
	publish({ type: "tool_execution_end", toolCallId: "early", toolName: "bash", result: { content: [{ type: "text", text: "key: sk-ant-api03-Zq8vK2mXp4Lr7Tn1Wb5Yc9Hd3Fg6Js0AeUo\n" }] }, isError: false });
	publish({ type: "agent_end", messageCount: 0 });
	await guest.waitForMessage((m) => m.type === "agent_end", from);
	const frames = guest.messages.slice(from);
	for (const frame of guest.messages) assert.deepEqual(leaks(JSON.stringify(frame), [anthropic]), [], JSON.stringify(frame));
	assert.equal(snapshot.streaming.content[0].text + streamedText("text", frames), redactSecrets(whole));
	assert.ok(!frames.some((m) => m.type === "tool_execution_update"), "the tool's stream started before the guest: only its result comes");
	assert.deepEqual(frames.find((m) => m.type === "tool_execution_end")!.result.content, [{ type: "text", text: "key: [REDACTED]\n" }]);
});

test("a tool's output pi cut to its tail is not streamed on: the tail may start inside a secret", async () => {
	const room = await host.ok({ type: "collab_start" });
	guest = await RawGuest.join(room.viewLink);
	const from = guest.messages.length;
	publish({ type: "tool_execution_start", toolCallId: "long", toolName: "bash", args: {} });
	publish({ type: "tool_execution_update", toolCallId: "long", toolName: "bash", partialResult: { content: [{ type: "text", text: "line one\n" }] } });
	// pi keeps the tail of a long output: the head is gone, here in the middle of a key.
	publish({ type: "tool_execution_update", toolCallId: "long", toolName: "bash", partialResult: { content: [{ type: "text", text: "Wb5Yc9Hd3Fg6Js0AeUo\nmore\n" }] } });
	publish({ type: "tool_execution_end", toolCallId: "long", toolName: "bash", result: { content: [{ type: "text", text: "more\n" }] }, isError: false });
	publish({ type: "agent_end", messageCount: 0 });
	await guest.waitForMessage((m) => m.type === "agent_end", from);
	const updates = guest.messages.slice(from).filter((m) => m.type === "tool_execution_update");
	assert.deepEqual(
		updates.map((m) => m.partialResult?.content),
		[[{ type: "text", text: "line one\n" }]],
	);
});
