/**
 * `resend`: a user message sent again from before it, as a new branch of the same session (edit and resend with
 * another text; regenerate with its own text and images), and its refusals, which leave the session file as it was.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { ReplyGate } from "../support/reply-gate.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

let model: FakeOpenAiServer;
let skiff: SkiffProcess;
const gate = new ReplyGate();

before(async () => {
	model = await startFakeOpenAi({ onRequest: () => gate.held });
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model"] });
});

after(async () => {
	await skiff?.stop();
	await model?.close();
});

interface Node {
	id: string;
	parentId: string | null;
	kind: string;
	preview: string;
}

async function tree(client: TestClient, sessionId: string): Promise<{ nodes: Node[]; leafId: string | null }> {
	return client.ok({ type: "get_tree", sessionId });
}

/** The recorded user messages of the session file, in order, as pi wrote them. */
function recordedUsers(sessionFile: string): Array<{ id: string; parentId: string | null; content: any }> {
	return readFileSync(sessionFile, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((line) => JSON.parse(line))
		.filter((entry) => entry.type === "message" && entry.message.role === "user")
		.map((entry) => ({ id: entry.id, parentId: entry.parentId, content: entry.message.content }));
}

test("resend with a message branches from before the prompt and runs the new text; followers reload first", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const watcher = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession(watcher);
	await client.turn(sessionId, "REPLY one");
	await client.turn(sessionId, "REPLY two");
	const second = (await tree(client, sessionId)).nodes.filter((n) => n.kind === "user")[1]!;
	const from = watcher.events.length;
	await client.ok({ type: "resend", sessionId, entryId: second.id, message: "REPLY edited" });
	await watcher.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 15_000, from);
	const seen = watcher.events.slice(from).map((e) => (e.type === "tree_changed" ? `tree_changed:${e.reason}` : e.type));
	assert.ok(seen.indexOf("tree_changed:navigated") < seen.indexOf("agent_start"), `the move comes before the run: ${seen.join(" ")}`);
	const after = await tree(client, sessionId);
	const siblings = after.nodes.filter((n) => n.parentId === second.parentId && n.kind === "user");
	assert.deepEqual(siblings.map((n) => n.preview), ["REPLY two", "REPLY edited"], "the old branch stays, the new one is its sibling");
	const { messages } = await client.ok({ type: "get_messages", sessionId });
	assert.deepEqual(
		messages.map((m: any) => (m.role === "user" ? m.content[0]?.text ?? m.content : m.content[0].text)),
		["REPLY one", "one", "REPLY edited", "edited"],
	);
	client.close();
	watcher.close();
});

test("resend without a message regenerates: the same text and images again, on a new branch", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	const from = client.events.length;
	await client.ok({ type: "prompt", sessionId, message: "REPLY look", images: [{ type: "image", data: PNG_1X1, mimeType: "image/png" }] });
	await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 15_000, from);
	const first = (await tree(client, sessionId)).nodes.find((n) => n.kind === "user")!;
	const again = client.events.length;
	await client.ok({ type: "resend", sessionId, entryId: first.id });
	await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 15_000, again);
	const { sessionFile } = await client.ok({ type: "get_state", sessionId });
	const users = recordedUsers(sessionFile);
	assert.equal(users.length, 2);
	assert.equal(users[1]!.parentId, users[0]!.parentId, "a sibling of the first prompt");
	assert.deepEqual(users[1]!.content, users[0]!.content, "the same text and image");
	assert.ok(users[1]!.content.some((b: any) => b.type === "image" && b.data === PNG_1X1));
	const { messages } = await client.ok({ type: "get_messages", sessionId });
	assert.equal(messages.length, 2, "the transcript is the new branch only");
	client.close();
});

test("resend refuses a bad entry, a blank or extra field, and a run in progress, writing nothing", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	await client.turn(sessionId, "REPLY settled");
	const { sessionFile } = await client.ok({ type: "get_state", sessionId });
	const { nodes, leafId } = await tree(client, sessionId);
	const user = nodes.find((n) => n.kind === "user")!;
	const answer = nodes.find((n) => n.kind === "assistant")!;
	const before = readFileSync(sessionFile, "utf8");
	const refusals: Array<[Record<string, unknown>, string, RegExp]> = [
		[{ entryId: "nope1234" }, "not_found", /Unknown entry nope1234 in session .*: see get_tree/],
		[{ entryId: answer.id }, "invalid_command", /is not a user message: only a prompt can be sent again/],
		[{ entryId: user.id, message: "  \n " }, "invalid_command", /`message` is blank/],
		[{ entryId: user.id, message: "" }, "invalid_command", /message/],
		[{}, "invalid_command", /entryId/],
		[{ entryId: user.id, extra: 1 }, "invalid_command", /extra/],
		[{ entryId: 42 }, "invalid_command", /entryId/],
	];
	for (const [fields, code, error] of refusals) {
		const response = await client.request({ type: "resend", sessionId, ...fields });
		assert.equal(response.code, code, JSON.stringify(fields));
		assert.match(response.error!, error);
	}
	assert.equal(readFileSync(sessionFile, "utf8"), before, "nothing was written by the refusals");
	assert.equal((await tree(client, sessionId)).leafId, leafId, "the leaf did not move");

	const from = client.events.length;
	const release = gate.hold();
	await client.ok({ type: "prompt", sessionId, message: "REPLY held while resend is refused" });
	await client.waitForEvent((e) => e.type === "agent_start" && e.sessionId === sessionId, 10_000, from);
	const mid = readFileSync(sessionFile, "utf8");
	const busy = await client.request({ type: "resend", sessionId, entryId: user.id, message: "REPLY too soon" });
	assert.equal(busy.code, "busy");
	assert.match(busy.error!, /Cannot send a message again now: a run, a compaction or another navigation is in progress/);
	assert.equal(readFileSync(sessionFile, "utf8"), mid, "the run's file is as it was");
	release();
	await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 10_000, from);
	client.close();
});
