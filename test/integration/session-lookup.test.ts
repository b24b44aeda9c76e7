/**
 * Session lookups in a real process: a session file another program writes after skiff started is found by
 * id, by prefix and by an envelope's sessionId; unknown ids, sent many at once, get the errors they always got.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startFakeOpenAi, writeFakeModelsJson, type FakeOpenAiServer } from "../support/fake-openai.js";
import { writeLongSession } from "../support/session-file.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
let skiff: SkiffProcess | undefined;

before(async () => {
	model = await startFakeOpenAi();
});

after(async () => {
	await skiff?.stop();
	await model?.close();
});

test("a session written by another program after start is found; unknown ids, many at once, are refused as before", async () => {
	const agentDir = tempDir();
	const cwd = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	writeLongSession(agentDir, cwd, "before-start", 2);
	skiff = await startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-model"] });
	const client = await TestClient.connect(skiff.wsUrl);
	await client.ok({ type: "get_state" });
	assert.equal((await client.ok({ type: "switch_session", sessionPath: "before-start" })).sessionId, "before-start");

	const unknown = await Promise.all([
		...Array.from({ length: 8 }, (_, i) => client.request({ type: "get_state", sessionId: `missing-${i}` })),
		...Array.from({ length: 8 }, (_, i) => client.request({ type: "switch_session", sessionPath: `missing-${i}` })),
	]);
	unknown.slice(0, 8).forEach((r, i) => assert.match(r.error ?? "", new RegExp(`^Unknown session: missing-${i}$`)));
	unknown.slice(8).forEach((r, i) => assert.match(r.error ?? "", new RegExp(`^No recorded session matches "missing-${i}"$`)));

	// This test's process is the other program: it writes two sessions while skiff runs.
	writeLongSession(agentDir, cwd, "written-later", 4);
	writeLongSession(agentDir, cwd, "another-written-later", 2);
	const messages = await client.ok({ type: "get_messages", sessionId: "written-later" });
	assert.equal(messages.messages.length, 4, "found by an envelope's sessionId");
	assert.equal((await client.ok({ type: "switch_session", sessionPath: "another-w" })).sessionId, "another-written-later", "and by prefix");
	client.close();
});
