import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentHandle, JsonObject, RuntimeEvent, SessionObserver } from "../../../../src/agent/types.js";
import { SIDE_CHAT_INSTRUCTIONS } from "../../../../src/features/side-chat/instructions.js";
import { MAX_SIDE_CHATS } from "../../../../src/features/side-chat/schemas.js";
import { type MainSession, SideChatService } from "../../../../src/features/side-chat/side-chat-service.js";
import { CodedError } from "../../../../src/shared/errors.js";
import { FakeAgentHandle } from "../../../support/fake-agent.js";

function setup() {
	let observer: SessionObserver | undefined;
	const published: Array<{ sessionId: string; event: RuntimeEvent }> = [];
	const service = new SideChatService({
		observe: (o) => {
			observer = o;
			return () => (observer = undefined);
		},
		publish: (sessionId, event) => published.push({ sessionId, event }),
		now: () => Date.UTC(2025, 0, 2, 3, 4, 5),
	});
	const handle = new FakeAgentHandle("main-1", "/s/main-1.jsonl");
	handle.conversation = [userMessage("hello main", 1), userMessage("second", 2)];
	const main: MainSession = { id: "main-1", handle };
	return {
		service,
		published,
		handle,
		main,
		observing: () => observer !== undefined,
		unload: (sessionId: string) => observer!(sessionId, { kind: "unloaded", reason: "closed" }),
	};
}

function userMessage(text: string, timestamp: number): JsonObject {
	return { role: "user", content: [{ type: "text", text }], timestamp };
}

async function refusal(promise: Promise<unknown> | (() => unknown)): Promise<CodedError> {
	try {
		await (typeof promise === "function" ? promise() : promise);
	} catch (error) {
		assert.ok(error instanceof CodedError, `a coded error, got ${String(error)}`);
		return error;
	}
	assert.fail("expected a refusal");
}

const types = (published: Array<{ event: RuntimeEvent }>) => published.map((p) => p.event.type);

test("a new tab is forked from the conversation, gets peek_main and the side chat instructions, and is announced", async () => {
	const { service, published, handle, main } = setup();
	const tab = await service.open(main, "why_1");
	assert.deepEqual(tab, {
		name: "why_1",
		streaming: false,
		messageCount: 0,
		created: "2025-01-02T03:04:05.000Z",
		model: "fake/fake-model",
		thinkingLevel: "off",
	});
	const side = handle.sideChats[0]!;
	assert.deepEqual(side.forked, handle.conversation);
	assert.deepEqual(side.options.tools.map((t) => t.name), ["peek_main"]);
	assert.equal(side.options.instructions, SIDE_CHAT_INSTRUCTIONS);
	assert.deepEqual(published, [{ sessionId: "main-1", event: { type: "side_chat_updated", tabs: [tab] } }]);
	assert.deepEqual(service.list("main-1"), [tab]);
	assert.deepEqual(service.list("other"), []);
});

test("a run streams as side_chat_event with the tab's name, deltas only, and the tab's state changes are announced", async () => {
	const { service, published, handle, main } = setup();
	await service.open(main, "t");
	const side = handle.sideChats[0]!;
	published.length = 0;
	await service.prompt("main-1", "t", "what is x?");
	side.stream("x is y");
	assert.equal(service.list("main-1")[0]!.streaming, true);
	const live = service.transcript("main-1", "t");
	assert.equal(live.running, true);
	assert.deepEqual((live.streaming as JsonObject).content, [{ type: "text", text: "x is y" }]);
	side.emit({ type: "session_stats", cost: 1 }); // not a run event: not forwarded
	side.finish();
	const kinds = types(published);
	assert.deepEqual([kinds[1], kinds.at(-1)], ["side_chat_updated", "side_chat_updated"], "announced when the run starts and ends");
	assert.equal(kinds.filter((k) => k === "side_chat_updated").length, 2);
	const inner = published.filter((p) => p.event.type === "side_chat_event").map((p) => p.event as unknown as { name: string; event: RuntimeEvent });
	assert.ok(inner.every((e) => e.name === "t"));
	assert.deepEqual(
		inner.map((e) => e.event.type),
		["agent_start", "message_start", "message_end", "message_start", ...Array(4).fill("message_update"), "message_end", "turn_end", "agent_end"],
	);
	const deltas = inner.filter((e) => e.event.type === "message_update").map((e) => e.event.assistantMessageEvent);
	assert.deepEqual(deltas, [{ type: "text_start", contentIndex: 0 }, ...["x ", "is ", "y"].map((delta) => ({ type: "text_delta", delta }))]);
	assert.deepEqual(inner.at(-2)!.event, { type: "turn_end" }, "shaped like the main transcript's events");
	assert.deepEqual(inner.at(-1)!.event, { type: "agent_end", messageCount: 1 });
	const updates = published.filter((p) => p.event.type === "side_chat_updated").map((p) => (p.event.tabs as Array<{ streaming: boolean; messageCount: number }>)[0]);
	assert.deepEqual(updates.map((t) => [t!.streaming, t!.messageCount]), [[true, 0], [false, 2]]);
	const done = service.transcript("main-1", "t");
	assert.equal(done.running, false);
	assert.equal(done.streaming, undefined);
	assert.deepEqual(done.messages.map((m) => (m as JsonObject).role), ["user", "assistant"]);
});

test("names out of pattern, a duplicate and a ninth tab are refused with nothing changed", async () => {
	const { service, published, handle, main } = setup();
	for (const name of ["", "has space", "a-b", "x".repeat(33), "ünï"]) {
		const error = await refusal(service.open(main, name));
		assert.equal(error.code, "invalid_command");
		assert.match(error.message, /1 to 32 letters, digits or underscores/);
	}
	assert.deepEqual(published, []);
	assert.equal(handle.sideChats.length, 0);
	for (let i = 0; i < MAX_SIDE_CHATS; i++) await service.open(main, `tab_${i}`);
	published.length = 0;
	const duplicate = await refusal(service.open(main, "tab_3"));
	assert.equal(duplicate.code, "conflict");
	assert.match(duplicate.message, /tab_3 is already open/);
	const ninth = await refusal(service.open(main, "ninth"));
	assert.equal(ninth.code, "limit");
	assert.match(ninth.message, /already has 8 side chats.*side_chat_close/);
	assert.deepEqual(published, []);
	assert.equal(handle.sideChats.length, MAX_SIDE_CHATS);
	assert.equal(service.list("main-1").length, MAX_SIDE_CHATS);
	// Another session has its own eight.
	const other = new FakeAgentHandle("main-2", undefined);
	await service.open({ id: "main-2", handle: other }, "tab_0");
	assert.equal(service.list("main-2").length, 1);
});

test("opens racing for the last places: exactly the limit succeeds, the name is taken at once", async () => {
	const { service, handle, main } = setup();
	let release!: () => void;
	handle.openGate = new Promise<void>((resolve) => (release = resolve));
	const opens = Array.from({ length: MAX_SIDE_CHATS + 1 }, (_, i) => service.open(main, `t${i}`));
	const sameName = service.open(main, "t0");
	release();
	const results = await Promise.allSettled([...opens, sameName]);
	assert.equal(results.filter((r) => r.status === "fulfilled").length, MAX_SIDE_CHATS);
	const codes = results.flatMap((r) => (r.status === "rejected" ? [(r.reason as CodedError).code] : []));
	assert.deepEqual(codes.sort(), ["conflict", "limit"]);
	assert.equal(handle.sideChats.length, MAX_SIDE_CHATS, "refused opens never reached the agent");
});

test("an unknown tab is not_found for every command; a prompt to a running tab is busy and changes nothing", async () => {
	const { service, handle, main } = setup();
	for (const attempt of [
		() => service.prompt("main-1", "nope", "hi"),
		() => service.abort("main-1", "nope"),
		() => service.close("main-1", "nope"),
		() => service.transcript("main-1", "nope"),
	]) {
		const error = await refusal(attempt);
		assert.equal(error.code, "not_found");
		assert.match(error.message, /No side chat named nope in session main-1: side_chat_list/);
	}
	await service.open(main, "t");
	const side = handle.sideChats[0]!;
	await service.prompt("main-1", "t", "first");
	const busy = await refusal(service.prompt("main-1", "t", "second"));
	assert.equal(busy.code, "busy");
	assert.match(busy.message, /still answering.*side_chat_abort/);
	assert.deepEqual(side.prompts, ["first"]);
	await service.abort("main-1", "t");
	assert.equal(side.aborted, 1);
	assert.equal(side.isBusy, false);
	await service.prompt("main-1", "t", "again");
	assert.deepEqual(side.prompts, ["first", "again"]);
});

test("close disposes the tab, announces the list, and nothing more of it is published", async () => {
	const { service, published, handle, main } = setup();
	await service.open(main, "a");
	await service.open(main, "b");
	const a = handle.sideChats[0]!;
	await service.prompt("main-1", "a", "run");
	published.length = 0;
	service.close("main-1", "a");
	assert.equal(a.disposed, true);
	assert.deepEqual(published.map((p) => p.event), [{ type: "side_chat_updated", tabs: service.list("main-1") }]);
	assert.deepEqual(service.list("main-1").map((t) => t.name), ["b"]);
	a.stream("late");
	assert.equal(published.length, 1, "a closed tab's events are not forwarded");
	await service.open(main, "a"); // the name is free again
});

test("when the session unloads its tabs are disposed silently; other sessions keep theirs", async () => {
	const { service, published, handle, main, unload, observing } = setup();
	const other = new FakeAgentHandle("main-2", undefined);
	await service.open(main, "a");
	await service.open(main, "b");
	await service.open({ id: "main-2", handle: other }, "c");
	published.length = 0;
	unload("main-1");
	assert.deepEqual(handle.sideChats.map((s) => s.disposed), [true, true]);
	assert.equal(other.sideChats[0]!.disposed, false);
	assert.deepEqual(published, [], "the session's followers were told it unloaded; nothing is published after");
	assert.deepEqual(service.list("main-1"), []);
	assert.equal(service.list("main-2").length, 1);
	service.dispose();
	assert.equal(other.sideChats[0]!.disposed, true);
	assert.equal(observing(), false);
});

test("a tab closed, or its session unloaded, while it opens is abandoned: the side agent is disposed", async () => {
	for (const interrupt of ["close", "unload"] as const) {
		const { service, handle, main, unload, published } = setup();
		let release!: () => void;
		handle.openGate = new Promise<void>((resolve) => (release = resolve));
		const opening = service.open(main, "slow");
		assert.deepEqual(service.list("main-1"), [], "a tab still opening is not listed");
		assert.equal((await refusal(() => service.prompt("main-1", "slow", "hi"))).code, "busy");
		if (interrupt === "close") service.close("main-1", "slow");
		else unload("main-1");
		release();
		const error = await refusal(opening);
		assert.equal(error.code, "conflict");
		assert.equal(handle.sideChats[0]!.disposed, true);
		assert.deepEqual(service.list("main-1"), []);
		assert.ok(published.every((p) => (p.event.tabs as unknown[]).length === 0));
	}
});

test("a failed open leaves nothing behind and says why, without secrets", async () => {
	const { service, handle, main } = setup();
	handle.openGate = Promise.reject(new Error("cannot read settings: token=abcdef123456"));
	const error = await refusal(service.open(main, "t"));
	assert.equal(error.code, "failed");
	assert.match(error.message, /Could not open side chat t: cannot read settings: token=\[REDACTED\]/);
	handle.openGate = undefined;
	await service.open(main, "t");
});

test("peek_main shows the main conversation since the fork, read from the session's current handle", async () => {
	const { service, handle, main } = setup();
	const mutable = main as { handle: AgentHandle };
	await service.open(main, "t");
	const peek = handle.sideChats[0]!.options.tools[0]!;
	assert.equal(await peek.execute({}, undefined), "Nothing new in the main conversation since the fork.");
	handle.conversation.push(userMessage("after the fork, key sk-abcdefghijklmnopqrstu", 3));
	const text = await peek.execute({}, undefined);
	assert.match(text, /^1 new message in the main conversation since the fork\./);
	assert.match(text, /\[user\]\nafter the fork, key \[REDACTED\]/);
	assert.doesNotMatch(text, /hello main|second/);
	// The session is reloaded from disk: a new handle holding copies; later messages are found by time.
	const reloaded = new FakeAgentHandle("main-1", "/s/main-1.jsonl");
	reloaded.conversation = handle.conversation.map((m) => ({ ...m }));
	reloaded.conversation.push(userMessage("after the reload", 4));
	mutable.handle = reloaded;
	const after = await peek.execute({}, undefined);
	assert.match(after, /^2 new messages/);
	assert.match(after, /recorded after it/);
	assert.match(after, /after the reload/);
});
