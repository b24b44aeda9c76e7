/** A real listener, a real WebSocket client and the fake model: whole turns, steering, aborting. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { startFakeOpenAi, writeFakeModelsJson, type FakeOpenAiServer } from "../support/fake-openai.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { type Event, TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
let skiff: SkiffProcess;
let client: TestClient;
/** Runs when a model request arrives, before the fake answers it. */
let onModelRequest: ((body: any) => void) | undefined;

before(async () => {
	model = await startFakeOpenAi({ onRequest: (request) => onModelRequest?.(request.body) });
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model"] });
	client = await TestClient.connect(skiff.wsUrl);
});

after(async () => {
	client?.close();
	await skiff?.stop();
	await model?.close();
});

const runEnded = (from: number) => client.waitForEvent((e) => e.type === "agent_end", 20_000, from);

test("a full turn with a bash tool call streams deltas and records the transcript", async () => {
	const from = client.events.length;
	await client.ok({ type: "prompt", message: "RUN echo hello-from-bash" });
	await runEnded(from);
	const events = client.events.slice(from);
	const types = events.map((e) => e.type);
	for (const expected of ["agent_start", "message_start", "tool_execution_start", "tool_execution_end", "message_end", "agent_end"]) {
		assert.ok(types.includes(expected), `missing ${expected}`);
	}
	const toolEnd = events.find((e) => e.type === "tool_execution_end")!;
	assert.equal(toolEnd.toolName, "bash");
	assert.match(JSON.stringify(toolEnd.result), /hello-from-bash/);

	// Every event names its session and numbers increase by one.
	const seqs = events.map((e) => e.seq);
	for (let i = 1; i < seqs.length; i++) assert.equal(seqs[i], seqs[i - 1]! + 1);
	assert.ok(events.every((e) => typeof e.sessionId === "string" && e.sessionId.length > 0));

	// Deltas carry only what is new.
	const updates = events.filter((e) => e.type === "message_update");
	assert.ok(updates.length > 0);
	for (const update of updates) {
		assert.equal(update.message, undefined, "message_update must not carry the partial message");
		assert.equal(update.assistantMessageEvent.partial, undefined);
		if (String(update.assistantMessageEvent.type).endsWith("_delta")) {
			const keys = update.assistantMessageEvent.contentIndex === undefined ? ["delta", "type"] : ["contentIndex", "delta", "type"];
			assert.deepEqual(Object.keys(update.assistantMessageEvent).sort(), keys, "a delta carries only what is new");
		}
	}
	const { messages, seq } = await client.ok({ type: "get_messages" });
	assert.deepEqual(messages.map((m: any) => m.role), ["user", "assistant", "toolResult", "assistant"]);
	assert.ok(seq >= seqs.at(-1)!);
	const state = await client.ok({ type: "get_state" });
	assert.equal(state.isStreaming, false);
	assert.equal(state.lastSeq, seq);
	assert.equal(state.model.id, "fake-model");
	assert.equal(state.model.headers, undefined);
});

test("the prompt is on disk when it is acknowledged, before the model answers", async () => {
	const marker = `persist-${Date.now()}`;
	const from = client.events.length;
	const requestSeen = model.nextRequest();
	await client.ok({ type: "prompt", message: `REPLY done\nPAUSE 300\n${marker}` });
	const { sessionFile } = await client.ok({ type: "get_state" });
	assert.match(readFileSync(sessionFile, "utf8"), new RegExp(marker), "prompt recorded at acknowledgement");
	await requestSeen;
	await runEnded(from);
});

test("a steering message is on disk before the model request that carries it", async () => {
	const { sessionFile } = await client.ok({ type: "get_state" });
	const seen: boolean[] = [];
	onModelRequest = (body) => {
		const lastUser = [...body.messages].reverse().find((m: any) => m.role === "user");
		const text = JSON.stringify(lastUser?.content ?? "");
		const marker = /marker-[a-z]+/.exec(text)?.[0];
		if (marker) seen.push(readFileSync(sessionFile, "utf8").includes(marker));
	};
	const from = client.events.length;
	await client.ok({ type: "prompt", message: "REPLY first part\nPAUSE 600\nmarker-prompt" });
	await client.waitForEvent((e) => e.type === "message_update", 10_000, from);
	await client.ok({ type: "steer", message: "REPLY steered part\nmarker-steer" });
	await runEnded(from);
	onModelRequest = undefined;
	assert.deepEqual(seen, [true, true], "both the prompt and the steering message were recorded before their model requests");
});

test("a second prompt during a run is rejected and says to steer; steer reaches the run", async () => {
	const from = client.events.length;
	await client.ok({ type: "prompt", message: "REPLY working on it\nPAUSE 1500" });
	await client.waitForEvent((e) => e.type === "message_update", 10_000, from);
	const second = await client.request({ type: "prompt", message: "another" });
	assert.equal(second.success, false);
	assert.match(second.error!, /steer/);
	await client.ok({ type: "steer", message: "REPLY steered reply" });
	await runEnded(from);
	const { messages } = await client.ok({ type: "get_messages" });
	const users = messages.filter((m: any) => m.role === "user").map((m: any) => JSON.stringify(m.content));
	assert.ok(users.some((u: string) => u.includes("steered reply")), "the steering message joined the conversation");
	const texts = messages.filter((m: any) => m.role === "assistant").map((m: any) => JSON.stringify(m.content));
	assert.ok(texts.some((t: string) => t.includes("steered reply")), "the model answered the steering message");
});

test("steer and follow_up while idle are refused with a pointer to prompt", async () => {
	for (const type of ["steer", "follow_up"]) {
		const response = await client.request({ type, message: "x" });
		assert.equal(response.success, false);
		assert.match(response.error!, /prompt/);
	}
});

test("abort stops a slow run and keeps the partial reply", async () => {
	const from = client.events.length;
	await client.ok({ type: "prompt", message: "REPLY one two three four five six seven eight nine ten\nSLOW 300" });
	await client.waitForEvent((e) => e.type === "message_update" && e.assistantMessageEvent.type === "text_delta", 10_000, from);
	await client.ok({ type: "abort" });
	const end = await client.waitForEvent((e: Event) => e.type === "message_end" && e.message.role === "assistant", 10_000, from);
	assert.equal(end.message.stopReason, "aborted");
	await runEnded(from);
	const state = await client.ok({ type: "get_state" });
	assert.equal(state.isStreaming, false);
});

test("what is still queued when a run is aborted is dropped (announced by queue_update), never delivered with the next prompt", async () => {
	const from = client.events.length;
	await client.ok({ type: "prompt", message: "REPLY one two three four five six seven eight nine ten\nSLOW 300" });
	await client.waitForEvent((e) => e.type === "message_update" && e.assistantMessageEvent.type === "text_delta", 10_000, from);
	await client.ok({ type: "steer", message: "marker-undelivered-steer" });
	await client.ok({ type: "follow_up", message: "marker-undelivered-follow-up" });
	await client.waitForEvent((e) => e.type === "queue_update" && e.steering.length === 1 && e.followUp.length === 1, 10_000, from);
	await client.ok({ type: "abort" });
	await runEnded(from);
	await client.waitForEvent((e) => e.type === "queue_update" && e.steering.length === 0 && e.followUp.length === 0, 10_000, from);
	assert.equal((await client.ok({ type: "get_state" })).pendingMessageCount, 0);

	const bodies: string[] = [];
	onModelRequest = (body) => bodies.push(JSON.stringify(body.messages));
	const next = client.events.length;
	await client.ok({ type: "prompt", message: "REPLY after the abort" });
	await runEnded(next);
	onModelRequest = undefined;
	assert.ok(bodies.length > 0);
	assert.ok(bodies.every((b) => !b.includes("marker-undelivered")), "the dropped messages never reach the model");
	const { messages } = await client.ok({ type: "get_messages" });
	assert.ok(!JSON.stringify(messages).includes("marker-undelivered"), "nor the transcript");
});

test("model and thinking-level commands", async () => {
	const { models } = await client.ok({ type: "get_available_models" });
	assert.ok(models.some((m: any) => m.provider === "fake" && m.id === "fake-model"));
	assert.ok(models.every((m: any) => m.headers === undefined));
	const chosen = await client.ok({ type: "set_model", provider: "fake", modelId: "fake-model" });
	assert.equal(chosen.id, "fake-model");
	const missing = await client.request({ type: "set_model", provider: "fake", modelId: "nope" });
	assert.equal(missing.success, false);
	assert.match(missing.error!, /Model not found: fake\/nope/);
	const { levels } = await client.ok({ type: "get_available_thinking_levels" });
	assert.ok(Array.isArray(levels) && levels.includes("off"));
	const set = await client.ok({ type: "set_thinking_level", level: "off" });
	assert.equal(set.level, "off");
	const bad = await client.request({ type: "set_thinking_level", level: "enormous" });
	assert.equal(bad.success, false);
	assert.match(bad.error!, /level/);
	const stats = await client.ok({ type: "get_session_stats" });
	assert.ok(stats.userMessages >= 1);
	const { commands } = await client.ok({ type: "get_commands" });
	assert.ok(Array.isArray(commands));
	const named = await client.ok({ type: "set_session_name", name: "  my session " });
	assert.equal(named.name, "my session");
	assert.equal((await client.ok({ type: "get_state" })).sessionName, "my session");
});

test("extension_ui_response is always rejected", async () => {
	const response = await client.request({ type: "extension_ui_response", value: "yes" });
	assert.equal(response.success, false);
	assert.match(response.error!, /disabled/);
});

test("thinking streams as thinking deltas and ends in a thinking block", async () => {
	await client.ok({ type: "set_model", provider: "fake", modelId: "fake-reasoner" });
	await client.ok({ type: "set_thinking_level", level: "low" });
	const from = client.events.length;
	// SLOW: a word at a time, each in a turn of its own (deltas that come in one turn are merged: delta-run.ts).
	await client.ok({ type: "prompt", message: "THINK weighing the options carefully\nREPLY decided\nSLOW 50" });
	await runEnded(from);
	const thinking = client.events.slice(from).filter((e) => e.type === "message_update" && e.assistantMessageEvent.type === "thinking_delta");
	assert.ok(thinking.length >= 2, "several thinking deltas");
	for (const e of thinking) assert.deepEqual(Object.keys(e.assistantMessageEvent).sort(), ["delta", "type"], "block 0: contentIndex left out");
	assert.equal(thinking.map((e) => e.assistantMessageEvent.delta).join("").trim(), "weighing the options carefully");
	const end = client.events.slice(from).find((e) => e.type === "message_end" && e.message.role === "assistant")!;
	assert.ok(end.message.content.some((c: any) => c.type === "thinking"));
	await client.ok({ type: "set_model", provider: "fake", modelId: "fake-model" });
});

test("images travel with a prompt to the model; malformed images are refused", async () => {
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
	const from = client.events.length;
	const requestIndex = model.requests.length;
	await client.ok({ type: "prompt", message: "REPLY I see it\nwhat is in this picture?", images: [{ type: "image", data: png, mimeType: "image/png" }] });
	await runEnded(from);
	const lastUser = [...model.requests[requestIndex]!.body.messages].reverse().find((m: any) => m.role === "user");
	assert.match(JSON.stringify(lastUser.content), /data:image\/png;base64,iVBORw0KGgo/);
	for (const images of [[{ type: "image", data: "not base64!", mimeType: "image/png" }], [{ type: "image", data: png, mimeType: "image/svg+xml" }], Array(9).fill({ type: "image", data: png, mimeType: "image/png" })]) {
		const response = await client.request({ type: "prompt", message: "x", images });
		assert.equal(response.success, false);
		assert.match(response.error!, /images/);
	}
});

test("a model that does not take images refuses a message with images before anything is recorded", async () => {
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
	await client.ok({ type: "set_model", provider: "fake", modelId: "fake-reasoner" }); // text only: no `input` in models.json
	try {
		const { messages } = await client.ok({ type: "get_messages" });
		const requests = model.requests.length;
		const refused = await client.request({ type: "prompt", message: "what is in this picture?", images: [{ type: "image", data: png, mimeType: "image/png" }] });
		assert.equal(refused.success, false);
		assert.equal(refused.code, "conflict");
		assert.equal(refused.error, "The model fake/fake-reasoner does not take images: remove the image, or choose a model that takes images");
		const after = await client.ok({ type: "get_messages" });
		assert.equal(after.messages.length, messages.length, "nothing recorded");
		assert.equal(model.requests.length, requests, "the model was not asked");
		// During a run, a steer or follow-up with images is refused the same way.
		const from = client.events.length;
		await client.ok({ type: "prompt", message: "REPLY one two three four five six seven eight nine ten eleven twelve\nSLOW 100" });
		for (const type of ["steer", "follow_up"]) {
			const queued = await client.request({ type, message: "and this?", images: [{ type: "image", data: png, mimeType: "image/png" }] });
			assert.equal(queued.code, "conflict", type);
			assert.match(queued.error!, /does not take images/);
		}
		await runEnded(from);
		const ended = await client.ok({ type: "get_messages" });
		assert.equal(ended.messages.filter((m: any) => m.role === "user").length, messages.filter((m: any) => m.role === "user").length + 1, "only the prompt was recorded");
	} finally {
		await client.ok({ type: "set_model", provider: "fake", modelId: "fake-model" });
	}
});
