/**
 * get_image end to end: the images a transcript sent without their data (wire-images.ts) come back one per
 * command, uploaded and inline alike, 5 MiB ones too, from a session that is not loaded; every refusal names
 * what was wrong.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { SkiffClient } from "../../src/client/node.js";
import { startFakeOpenAi, writeFakeModelsJson, type FakeOpenAiServer } from "../support/fake-openai.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

const TOKEN = "get-image-token_for.tests";
const MIB = 1024 * 1024;
const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const png = (size: number, fill: number) => Buffer.concat([PNG_HEAD, Buffer.alloc(size - PNG_HEAD.length, fill)]);

let model: FakeOpenAiServer;
let skiff: SkiffProcess;
let client: TestClient;
let typed: SkiffClient;
let sessionId: string;
let userEntry: string;
let answerEntry: string;

before(async () => {
	model = await startFakeOpenAi();
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	const tokenFile = join(tempDir(), "token");
	writeFileSync(tokenFile, TOKEN, { mode: 0o600 });
	skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model", "--listen-token-file", tokenFile] });
	client = await TestClient.connect(skiff.wsUrl, { protocols: [`skiff-auth.${TOKEN}`] });
	typed = new SkiffClient({ url: skiff.wsUrl, token: TOKEN, reconnect: false });
	await typed.connect();
	// A session of its own, so that it can be closed: two 5 MiB uploads and a small inline image.
	sessionId = (await client.ok({ type: "new_session" })).sessionId;
	const ids = [];
	for (const fill of [1, 2]) ids.push((await typed.upload(new Uint8Array(png(5 * MIB, fill)), "image/png")).id);
	const from = client.events.length;
	const images = [{ type: "image", attachmentId: ids[0] }, { type: "image", data: png(40, 3).toString("base64"), mimeType: "image/png" }, { type: "image", attachmentId: ids[1] }];
	await client.ok({ type: "prompt", sessionId, message: "REPLY seen\nlook", images }, 60_000);
	await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 20_000, from);
	const { nodes } = await client.ok({ type: "get_tree", sessionId });
	userEntry = nodes.find((n: any) => n.kind === "user").id;
	answerEntry = nodes.find((n: any) => n.kind === "assistant").id;
});

after(async () => {
	typed?.close();
	client?.close();
	await skiff?.stop();
	await model?.close();
});

test("the images a transcript left out come back one per command, uploaded, inline and 5 MiB alike", async () => {
	const { messages } = await client.ok({ type: "get_messages", sessionId });
	const sent = messages.find((m: any) => m.role === "user").content.filter((b: any) => b.type === "image");
	assert.ok(sent.some((b: any) => b.omittedBytes === 5 * MIB), "the transcript left one out");
	for (const [index, image] of [png(5 * MIB, 1), png(40, 3), png(5 * MIB, 2)].entries()) {
		assert.deepEqual(await client.ok({ type: "get_image", sessionId, entryId: userEntry, index }, 30_000), { mimeType: "image/png", data: image.toString("base64") });
	}
	// The typed client has the method.
	assert.equal((await typed.call("get_image", { entryId: userEntry, index: 1 }, { sessionId })).data, png(40, 3).toString("base64"));
});

test("several asked at once all come, in turn, and the connection stays up", async () => {
	const answers = await Promise.all([0, 2, 0, 2].map((index) => client.ok({ type: "get_image", sessionId, entryId: userEntry, index }, 60_000)));
	assert.deepEqual(
		answers.map((a: any) => a.data.length),
		[0, 2, 0, 2].map(() => png(5 * MIB, 1).toString("base64").length),
	);
	assert.equal((await client.ok({ type: "get_state", sessionId })).isStreaming, false);
});

test("refusals: an unknown entry, an answer, an index past the images, bad fields, an unknown session", async () => {
	const refusal = async (command: Record<string, unknown>) => {
		const response = await client.request({ type: "get_image", sessionId, ...command });
		assert.equal(response.success, false, JSON.stringify(command));
		return { code: response.code, error: response.error };
	};
	const unknown = await refusal({ entryId: "nope1234", index: 0 });
	assert.equal(unknown.code, "not_found");
	assert.match(unknown.error!, /Unknown entry nope1234/);
	const answer = await refusal({ entryId: answerEntry, index: 0 });
	assert.equal(answer.code, "invalid_command");
	assert.match(answer.error!, /is not a user message or tool result/);
	const past = await refusal({ entryId: userEntry, index: 3 });
	assert.equal(past.code, "invalid_command");
	assert.match(past.error!, /`index` 3 is past the 3 image\(s\)/);
	for (const bad of [{ entryId: userEntry, index: -1 }, { entryId: userEntry, index: 1.5 }, { entryId: "", index: 0 }, { entryId: userEntry }, { entryId: userEntry, index: 0, extra: 1 }]) {
		assert.equal((await refusal(bad)).code, "invalid_command", JSON.stringify(bad));
	}
	const response = await client.request({ type: "get_image", sessionId: "f".repeat(36), entryId: userEntry, index: 0 });
	assert.equal(response.success, false);
});

test("a session that is not loaded is read from its file", async () => {
	await client.ok({ type: "close_session", sessionId });
	assert.deepEqual(await client.ok({ type: "get_image", sessionId, entryId: userEntry, index: 2 }, 30_000), { mimeType: "image/png", data: png(5 * MIB, 2).toString("base64") });
});
