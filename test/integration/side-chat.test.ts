/**
 * Side chats against the real service and the fake model: a tab forked from the conversation answers with
 * streamed `side_chat_event`s, reads files and peeks at the main conversation, never touches the session
 * file, and its limits, refusals, abort, close and unloading behave as documented.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { ReplyGate } from "../support/reply-gate.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { type Event, TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
let skiff: SkiffProcess;
const gate = new ReplyGate();

before(async () => {
	model = await startFakeOpenAi({ onRequest: () => gate.held });
	const agentDir = tempDir();
	const cwd = tempDir();
	writeFileSync(join(cwd, "notes.txt"), "the answer is in the notes\n");
	writeFakeModelsJson(agentDir, model.url);
	skiff = await startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-model"] });
});

after(async () => {
	await skiff?.stop();
	await model?.close();
});

/** The side events of one tab's run, from its prompt to its agent_end. */
async function sideTurn(client: TestClient, sessionId: string, name: string, message: string): Promise<Event[]> {
	const from = client.events.length;
	await client.ok({ type: "side_chat_prompt", sessionId, name, message });
	await client.waitForEvent((e) => isSide(e, sessionId, name, "agent_end"), 20_000, from);
	return client.events.slice(from).filter((e) => isSide(e, sessionId, name));
}

function isSide(e: Event, sessionId: string, name: string, type?: string): boolean {
	return e.type === "side_chat_event" && e.sessionId === sessionId && e.name === name && (type === undefined || e.event.type === type);
}

function toolNames(body: any): string[] {
	return (body.tools ?? []).map((t: any) => t.function.name).sort();
}

test("a tab forked from the conversation answers with streamed events, with the session's model, and the session file stays as it was", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	await client.ok({ type: "set_model", sessionId, provider: "fake", modelId: "fake-reasoner" });
	await client.ok({ type: "set_thinking_level", sessionId, level: "high" });
	await client.turn(sessionId, "REPLY the main answer");
	const mainTools = toolNames(model.requests.at(-1)!.body);
	const { sessionFile } = await client.ok({ type: "get_state", sessionId });
	const fileAtFork = readFileSync(sessionFile);

	const from = client.events.length;
	const tab = await client.ok({ type: "side_chat_new", sessionId, name: "why" });
	assert.equal(tab.name, "why");
	assert.equal(tab.model, "fake/fake-reasoner", "the session's model at the fork");
	assert.equal(tab.thinkingLevel, "high");
	assert.equal(tab.streaming, false);
	const opened = await client.waitForEvent((e) => e.type === "side_chat_updated" && e.sessionId === sessionId, 10_000, from);
	assert.deepEqual(opened.tabs, [tab]);
	assert.deepEqual(readFileSync(sessionFile), fileAtFork, "opening a tab writes nothing");
	// The session moves on after the fork; the tab keeps what it was given.
	await client.ok({ type: "set_model", sessionId, provider: "fake", modelId: "fake-model" });
	const fileBefore = readFileSync(sessionFile);
	const messagesBefore = (await client.ok({ type: "get_messages", sessionId })).messages;

	// SLOW: a word at a time, each in a turn of its own (deltas that come in one turn are merged: delta-run.ts).
	const events = await sideTurn(client, sessionId, "why", "REPLY one two three four\nSLOW 50");
	const inner = events.map((e) => e.event);
	assert.equal(inner[0].type, "agent_start");
	const deltas = inner.filter((e) => e.type === "message_update" && e.assistantMessageEvent.type === "text_delta");
	assert.ok(deltas.length >= 2, "streamed as deltas");
	assert.equal(deltas.map((e) => e.assistantMessageEvent.delta).join(""), "one two three four");
	assert.ok(deltas.every((e) => e.message === undefined && e.assistantMessageEvent.partial === undefined), "deltas only");
	const reply = inner.filter((e) => e.type === "message_end").at(-1).message;
	assert.equal(reply.role, "assistant");
	assert.equal(reply.content[0].text, "one two three four");
	assert.equal(client.events.slice(from).some((e) => e.type === "agent_start"), false, "the main session did not run");

	const request = model.requests.at(-1)!.body;
	assert.equal(request.model, "fake-reasoner");
	const system = request.messages[0].content;
	assert.match(typeof system === "string" ? system : JSON.stringify(system), /# Side chat/);
	assert.ok(JSON.stringify(request.messages).includes("the main answer"), "the tab was given the conversation up to the fork");
	const sideTools = toolNames(request);
	assert.deepEqual(sideTools, ["find", "grep", "ls", "peek_main", "read"].filter((t) => t === "ls" || t === "peek_main" || t === "read" || mainTools.includes(t)));

	const transcript = await client.ok({ type: "side_chat_messages", sessionId, name: "why" });
	assert.deepEqual(transcript.messages.map((m: any) => m.role), ["user", "assistant"]);
	assert.equal(transcript.running, false);
	assert.ok(transcript.seq >= events.at(-1)!.seq, "the transcript matches the events seen");
	const list = await client.ok({ type: "side_chat_list", sessionId });
	assert.equal(list.ephemeral, true);
	assert.match(list.note, /memory only.*lost when the session unloads/);
	assert.equal(list.maxTabs, 8);
	assert.deepEqual(list.tabs.map((t: any) => [t.name, t.messageCount, t.streaming]), [["why", 2, false]]);

	assert.deepEqual(readFileSync(sessionFile), fileBefore, "the session file is untouched, byte for byte");
	assert.deepEqual((await client.ok({ type: "get_messages", sessionId })).messages, messagesBefore);
	client.close();
});

test("the tab reads files with its read-only tools, has no others, and peek_main sees what the main conversation said since the fork", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	await client.turn(sessionId, "REPLY said before the fork");
	const { sessionFile } = await client.ok({ type: "get_state", sessionId });
	await client.ok({ type: "side_chat_new", sessionId, name: "peek" });
	await client.turn(sessionId, "REPLY said after the fork with key sk-abcdefghijklmnopqrstuvwxyz");
	const fileBefore = readFileSync(sessionFile);

	const read = await sideTurn(client, sessionId, "peek", 'CALL read {"path":"notes.txt"}\nAFTER_TOOL I read it.');
	const readEnd = read.find((e) => e.event.type === "tool_execution_end")!.event;
	assert.equal(readEnd.isError, false);
	assert.match(readEnd.result.content[0].text, /the answer is in the notes/);

	const bash = await sideTurn(client, sessionId, "peek", 'CALL bash {"command":"echo hi"}\nAFTER_TOOL no shell.');
	const bashEnd = bash.find((e) => e.event.type === "tool_execution_end")?.event;
	const bashResult = bash.find((e) => e.event.type === "message_end" && e.event.message.role === "toolResult")!.event.message;
	assert.equal(bashResult.isError, true, "bash is not a side chat tool");
	assert.ok(bashEnd === undefined || bashEnd.isError);

	const peek = await sideTurn(client, sessionId, "peek", "CALL peek_main {}\nAFTER_TOOL peeked.");
	const peekEnd = peek.find((e) => e.event.type === "tool_execution_end")!.event;
	const text: string = peekEnd.result.content[0].text;
	assert.equal(peekEnd.isError, false);
	assert.match(text, /^2 new messages in the main conversation since the fork\./);
	assert.match(text, /said after the fork with key \[REDACTED\]/);
	assert.doesNotMatch(text, /before the fork|sk-abcdef/);
	assert.deepEqual(readFileSync(sessionFile), fileBefore, "nothing of the side chat reaches the session file");
	client.close();
});

test("bad input: a name out of pattern, a duplicate, a ninth tab, an unknown tab, a prompt while the tab streams; each refused, nothing changed", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	for (const name of ["bad name", "", "x".repeat(33), "dash-ed"]) {
		const refused = await client.request({ type: "side_chat_new", sessionId, name });
		assert.equal(refused.code, "invalid_command", name);
		assert.match(refused.error!, /`name`/);
	}
	assert.deepEqual((await client.ok({ type: "side_chat_list", sessionId })).tabs, []);
	for (let i = 0; i < 8; i++) await client.ok({ type: "side_chat_new", sessionId, name: `tab_${i}` });
	const ninth = await client.request({ type: "side_chat_new", sessionId, name: "tab_8" });
	assert.equal(ninth.code, "limit");
	assert.match(ninth.error!, /8 side chats/);
	const duplicate = await client.request({ type: "side_chat_new", sessionId, name: "tab_0" });
	assert.equal(duplicate.code, "conflict");
	for (const type of ["side_chat_messages", "side_chat_abort", "side_chat_close"]) {
		const unknown = await client.request({ type, sessionId, name: "nope" });
		assert.equal(unknown.code, "not_found", type);
		assert.match(unknown.error!, /No side chat named nope/);
	}
	assert.equal((await client.request({ type: "side_chat_prompt", sessionId, name: "nope", message: "hi" })).code, "not_found");
	assert.deepEqual((await client.ok({ type: "side_chat_list", sessionId })).tabs.map((t: any) => t.name), Array.from({ length: 8 }, (_, i) => `tab_${i}`));

	const release = gate.hold();
	try {
		const from = client.events.length;
		await client.ok({ type: "side_chat_prompt", sessionId, name: "tab_0", message: "REPLY held" });
		await client.waitForEvent((e) => isSide(e, sessionId, "tab_0", "agent_start"), 10_000, from);
		const busy = await client.request({ type: "side_chat_prompt", sessionId, name: "tab_0", message: "REPLY again" });
		assert.equal(busy.code, "busy");
		assert.match(busy.error!, /still answering/);
		const list = await client.ok({ type: "side_chat_list", sessionId });
		assert.deepEqual(list.tabs.filter((t: any) => t.streaming).map((t: any) => [t.name, t.messageCount]), [["tab_0", 1]], "only the held prompt was taken");
		// Other tabs and the main session are not held up by it.
		assert.equal((await client.request({ type: "side_chat_messages", sessionId, name: "tab_1" })).success, true);

		await client.ok({ type: "side_chat_abort", sessionId, name: "tab_0" });
		const end = await client.waitForEvent((e) => isSide(e, sessionId, "tab_0", "message_end") && e.event.message.role === "assistant", 10_000, from);
		assert.equal(end.event.message.stopReason, "aborted");
		await client.waitForEvent((e) => isSide(e, sessionId, "tab_0", "agent_end"), 10_000, from);
	} finally {
		release();
	}
	const after = await sideTurn(client, sessionId, "tab_0", "REPLY after the abort");
	assert.equal(after.filter((e) => e.event.type === "message_end").at(-1)!.event.message.content[0].text, "after the abort");
	client.close();
});

test("close drops a tab; a session's tabs are gone once it unloads, even one that is running", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	await client.ok({ type: "side_chat_new", sessionId, name: "a" });
	await client.ok({ type: "side_chat_new", sessionId, name: "b" });
	const from = client.events.length;
	await client.ok({ type: "side_chat_close", sessionId, name: "a" });
	const updated = await client.waitForEvent((e) => e.type === "side_chat_updated" && e.sessionId === sessionId, 10_000, from);
	assert.deepEqual(updated.tabs.map((t: any) => t.name), ["b"]);
	assert.equal((await client.request({ type: "side_chat_prompt", sessionId, name: "a", message: "hi" })).code, "not_found");

	const release = gate.hold();
	try {
		const running = client.events.length;
		await client.ok({ type: "side_chat_prompt", sessionId, name: "b", message: "REPLY never finished" });
		await client.waitForEvent((e) => isSide(e, sessionId, "b", "agent_start"), 10_000, running);
		await client.ok({ type: "close_session", sessionId }); // a running side chat does not keep its session loaded
		await client.waitForEvent((e) => e.type === "session_unloaded" && e.sessionId === sessionId, 10_000, running);
	} finally {
		release();
	}
	const list = await client.ok({ type: "side_chat_list", sessionId }); // loads the session again
	assert.deepEqual(list.tabs, []);
	assert.equal((await client.request({ type: "side_chat_messages", sessionId, name: "b" })).code, "not_found");
	await client.ok({ type: "side_chat_new", sessionId, name: "b" });
	client.close();
});
