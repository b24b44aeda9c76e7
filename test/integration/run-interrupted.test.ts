/**
 * A run that the service's shutdown cuts off, with real pi, the fake model and a real restart: its aborted reply
 * is followed by a hidden `run_interrupted` message, so the session opened again after the restart says why
 * its last reply stopped; the conversation goes on from there with a prompt. A session that was idle at the
 * shutdown gets no such message, and neither does a run the user stopped.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { ReplyGate } from "../support/reply-gate.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
let skiff: SkiffProcess | undefined;
const gate = new ReplyGate();

before(async () => {
	model = await startFakeOpenAi({ onRequest: () => gate.held });
});

after(async () => {
	await skiff?.stop();
	await model?.close();
});

const interrupted = (messages: any[]) => messages.filter((m) => m.role === "custom" && m.customType === "run_interrupted");

test("a run cut off by a restart is marked so in its session, and the conversation goes on", async () => {
	const agentDir = tempDir();
	const cwd = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	const args = ["--model", "fake/fake-model", "--session-id", "cut-off"];
	skiff = await startSkiff({ agentDir, cwd, args });
	let client = await TestClient.connect(skiff.wsUrl);
	// A run the user stops is not marked: only the shutdown's.
	let release = gate.hold();
	let from = client.events.length;
	await client.ok({ type: "prompt", message: "REPLY stopped by the user" });
	await client.waitForEvent((e) => e.type === "agent_start", 20_000, from);
	await client.ok({ type: "abort" });
	release();
	await client.waitForEvent((e) => e.type === "agent_end", 20_000, from);

	release = gate.hold();
	from = client.events.length;
	await client.ok({ type: "prompt", message: "REPLY never finished" });
	await client.waitForEvent((e) => e.type === "agent_start", 20_000, from);
	client.close();
	assert.equal(await skiff.stop("SIGTERM"), 0);
	release();

	skiff = await startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-model", "--continue"] });
	client = await TestClient.connect(skiff.wsUrl);
	const { messages } = await client.ok({ type: "get_messages" });
	const marks = interrupted(messages);
	assert.equal(marks.length, 1, "one mark: the user's own stop is not one");
	assert.equal(marks[0].display, false);
	assert.equal(marks[0].details.reason, "shutdown");
	assert.equal(messages.at(-1), marks[0], "the mark is the last message");
	assert.equal(messages.at(-2).role, "assistant");
	assert.equal(messages.at(-2).stopReason, "aborted");

	// Continue: a prompt goes on from there; the model is told the last run was cut off.
	from = client.events.length;
	await client.ok({ type: "prompt", message: "REPLY going on" });
	await client.waitForEvent((e) => e.type === "agent_end", 20_000, from);
	assert.match(JSON.stringify(model.requests.at(-1)!.body.messages), /service stopped \(for a restart\) before it finished/);
	const after = (await client.ok({ type: "get_messages" })).messages;
	assert.equal(after.at(-1).role, "assistant");
	assert.equal(after.at(-1).stopReason, "stop");

	// Idle at the shutdown: nothing is added.
	client.close();
	assert.equal(await skiff.stop("SIGTERM"), 0);
	skiff = await startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-model", "--continue"] });
	client = await TestClient.connect(skiff.wsUrl);
	assert.equal(interrupted((await client.ok({ type: "get_messages" })).messages).length, 1);
	client.close();
});
