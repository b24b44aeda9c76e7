/**
 * pi's own RpcClient, unchanged, drives `skiff --mode rpc` against the fake model: what was written for pi's
 * RPC mode works with Skiff.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { RpcClient } from "../support/pi-rpc-client.js";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { REPO_ROOT, tempDir } from "../support/skiff-process.js";

let model: FakeOpenAiServer;
let client: RpcClient;

before(async () => {
	model = await startFakeOpenAi();
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	client = new RpcClient({ cliPath: join(REPO_ROOT, "bin", "skiff"), cwd: tempDir(), env: { SKIFF_AGENT_DIR: agentDir }, provider: "fake", model: "fake-model" });
	await client.start();
});

after(async () => {
	await client?.stop();
	await model?.close();
});

/** Resolves with the first event that matches (events are pi's session events, as RpcClient passes them on). */
function nextEvent(matches: (event: any) => boolean): Promise<any> {
	return new Promise((resolve) => {
		const off = client.onEvent((event) => {
			if (!matches(event)) return;
			off();
			resolve(event);
		});
	});
}

const textOf = (message: any) => (typeof message.content === "string" ? message.content : message.content.map((c: any) => c.text ?? "").join(""));

test("pi's RpcClient: prompt, steer, abort, state, messages, models, thinking, bash and a new session", async () => {
	const events = await client.promptAndWait("REPLY Hello from Skiff.");
	assert.equal(events[0]!.type, "agent_start");
	assert.equal(events.at(-1)!.type, "agent_end");
	assert.ok(events.some((e) => e.type === "message_update"));
	assert.equal(await client.getLastAssistantText(), "Hello from Skiff.");

	const state = await client.getState();
	assert.equal(state.model?.id, "fake-model");
	assert.equal(state.isStreaming, false);
	assert.equal(state.messageCount, 2);

	// Steer during a run: the run takes the message and answers it before it ends.
	let idle = client.waitForIdle();
	const streaming = nextEvent((e) => e.type === "message_update");
	await client.prompt("REPLY one two three four five six seven eight\nSLOW 30");
	await streaming;
	await client.steer("steered in");
	await idle;
	const afterSteer = await client.getMessages();
	assert.ok(afterSteer.some((m: any) => m.role === "user" && textOf(m) === "steered in"), "the steering message joined the run");
	assert.equal(await client.getLastAssistantText(), "ok: steered in");

	// Abort: the partial reply is kept, marked aborted.
	idle = client.waitForIdle();
	const started = nextEvent((e) => e.type === "message_update");
	await client.prompt("REPLY a long reply that will be cut off here\nSLOW 200");
	await started;
	await client.abort();
	await idle;
	const aborted = (await client.getMessages()).at(-1) as any;
	assert.equal(aborted.role, "assistant");
	assert.equal(aborted.stopReason, "aborted");

	// The user's own shell command, recorded in the transcript.
	const bash = await client.bash("echo from-bash");
	assert.deepEqual({ output: bash.output, exitCode: bash.exitCode, cancelled: bash.cancelled }, { output: "from-bash\n", exitCode: 0, cancelled: false });
	const bashMessage = (await client.getMessages()).at(-1) as any;
	assert.equal(bashMessage.role, "bashExecution");
	assert.equal(bashMessage.command, "echo from-bash");

	// Models and thinking levels.
	assert.equal(await client.cycleThinkingLevel(), null, "fake-model cannot think");
	const reasoner = await client.setModel("fake", "fake-reasoner");
	assert.equal(reasoner.id, "fake-reasoner");
	assert.equal((await client.getState()).model?.id, "fake-reasoner");
	const cycled = await client.cycleThinkingLevel();
	assert.ok(cycled && cycled.level !== "off", `a thinking model cycles to a level (${JSON.stringify(cycled)})`);
	assert.equal((await client.getState()).thinkingLevel, cycled.level);

	// A new session becomes the current one: commands and events follow it.
	const first = (await client.getState()).sessionId;
	const created = await client.newSession();
	assert.equal(created.cancelled, false);
	const current = await client.getState();
	assert.notEqual(current.sessionId, first);
	assert.equal(current.messageCount, 0);
	assert.deepEqual(await client.getMessages(), []);
	const run = await client.promptAndWait("REPLY In the new session.");
	assert.ok(run.every((e: any) => e.sessionId === current.sessionId), "only the current session's events arrive");
	assert.equal(await client.getLastAssistantText(), "In the new session.");
});
