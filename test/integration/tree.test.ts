/**
 * The session tree over the protocol: get_tree, navigate_tree (with and without a branch summary), set_label,
 * the tree_changed events every follower gets, fork from an abandoned branch, and the refusals (unknown
 * entries, a run in progress) that leave the session file as it was; `resend` (edit and resend, regenerate) and
 * its refusals.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
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
	writeFakeModelsJson(agentDir, model.url);
	skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model"] });
});

after(async () => {
	await skiff?.stop();
	await model?.close();
});

/** A new session of its own, followed by `client` (and `watcher`, when given). */
interface Node {
	id: string;
	parentId: string | null;
	kind: string;
	preview: string;
	label?: string;
	turnId?: string;
	toolCalls?: Array<{ id: string; name: string }>;
	toolCallId?: string;
}

async function tree(client: TestClient, sessionId: string): Promise<{ nodes: Node[]; leafId: string | null }> {
	return client.ok({ type: "get_tree", sessionId });
}

test("get_tree lists every entry with its kind, a bounded redacted preview, and tool results folded under their turn", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	await client.turn(sessionId, `RUN echo tree\nAFTER_TOOL Done. key sk-ant-api03-abcdefghijklmnopqrstuvwx\n${"long ".repeat(300)}`);
	const { nodes, leafId } = await tree(client, sessionId);
	const kinds = nodes.map((n) => n.kind);
	assert.deepEqual(kinds.filter((k) => ["user", "assistant", "toolResult"].includes(k)), ["user", "assistant", "toolResult", "assistant"]);
	assert.equal(leafId, nodes.at(-1)!.id, "the leaf is the last entry");
	for (const [i, node] of nodes.entries()) {
		assert.ok(node.preview.length <= 161, `preview of ${node.kind} is bounded (${node.preview.length})`);
		assert.ok(!node.preview.includes("\n"));
		if (i > 0) assert.ok(nodes.slice(0, i).some((p) => p.id === node.parentId), "a parent comes before its children");
	}
	const user = nodes.find((n) => n.kind === "user")!;
	assert.match(user.preview, /^RUN echo tree AFTER_TOOL Done\. key \[REDACTED\] long long/);
	assert.ok(user.preview.endsWith("…"));
	const [caller, answer] = nodes.filter((n) => n.kind === "assistant");
	assert.deepEqual(caller!.toolCalls?.map((c) => c.name), ["bash"]);
	const result = nodes.find((n) => n.kind === "toolResult")!;
	assert.equal(result.turnId, caller!.id, "the result names the turn that called it");
	assert.equal(result.toolCallId, caller!.toolCalls![0]!.id);
	assert.match(answer!.preview, /\[REDACTED\]/);
	assert.ok(!JSON.stringify(nodes).includes("sk-ant-api03"), "no secret in any preview");
	client.close();
});

test("tree_changed reports appended entries to every follower, and session_stats follows each turn", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const watcher = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession(watcher);
	const from = watcher.events.length;
	await client.turn(sessionId, "REPLY first answer");
	await watcher.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 10_000, from);
	const changes = watcher.events.slice(from).filter((e) => e.type === "tree_changed");
	assert.ok(changes.every((e) => e.reason === "appended" && e.reload === false));
	const appended: Node[] = changes.flatMap((e) => e.nodes);
	const { nodes, leafId } = await tree(client, sessionId);
	// The session's first entries (its model and thinking level) were recorded when it was created.
	assert.deepEqual(appended.map((n) => n.kind), ["user", "assistant"]);
	assert.deepEqual(appended.map((n) => n.id), nodes.slice(-2).map((n) => n.id), "the events carried every entry of the run, in order");
	assert.equal(changes.at(-1)!.leafId, leafId);
	const stats = watcher.events.slice(from).filter((e) => e.type === "session_stats");
	assert.ok(stats.length >= 1, "stats were pushed");
	const polled = await client.ok({ type: "get_session_stats", sessionId });
	assert.equal(stats.at(-1)!.assistantMessages, polled.assistantMessages);
	assert.equal(stats.at(-1)!.tokens.total, polled.tokens.total);
	client.close();
	watcher.close();
});

test("navigate_tree to a user message: the leaf moves to its parent, its text comes back, followers reload", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const watcher = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession(watcher);
	await client.turn(sessionId, "REPLY one");
	await client.turn(sessionId, "REPLY two");
	const before = await tree(client, sessionId);
	const second = before.nodes.filter((n) => n.kind === "user")[1]!;
	const from = watcher.events.length;
	const moved = await client.ok({ type: "navigate_tree", sessionId, entryId: second.id });
	assert.deepEqual(moved, { leafId: second.parentId, changed: true, editorText: "REPLY two" });
	const event = await watcher.waitForEvent((e) => e.type === "tree_changed" && e.reason === "navigated", 5000, from);
	assert.equal(event.reload, true);
	assert.equal(event.leafId, second.parentId);
	const { messages } = await watcher.ok({ type: "get_messages", sessionId });
	assert.deepEqual(
		messages.map((m: any) => m.role),
		["user", "assistant"],
		"the transcript is the branch up to the first reply",
	);
	// Continuing writes a sibling branch in the same file.
	await client.turn(sessionId, "REPLY three");
	const after = await tree(client, sessionId);
	const siblings = after.nodes.filter((n) => n.parentId === second.parentId && n.kind === "user");
	assert.deepEqual(siblings.map((n) => n.preview), ["REPLY two", "REPLY three"]);
	// Navigating to an assistant entry makes it the leaf; navigating to the leaf changes nothing.
	const reply = before.nodes.filter((n) => n.kind === "assistant").at(-1)!;
	assert.deepEqual(await client.ok({ type: "navigate_tree", sessionId, entryId: reply.id }), { leafId: reply.id, changed: true });
	assert.deepEqual(await client.ok({ type: "navigate_tree", sessionId, entryId: reply.id }), { leafId: reply.id, changed: false });
	const back = await client.ok({ type: "get_messages", sessionId });
	assert.equal(back.messages.at(-1).content[0].text, "two");
	client.close();
	watcher.close();
});

test("navigate_tree with summarize records a branch summary of the branch left (calling the model)", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	await client.turn(sessionId, "REPLY base");
	await client.turn(sessionId, "REPLY abandoned work");
	const { nodes } = await tree(client, sessionId);
	const abandoned = nodes.filter((n) => n.kind === "user")[1]!;
	const requests = model.requests.length;
	const moved = await client.ok({
		type: "navigate_tree",
		sessionId,
		entryId: abandoned.id,
		summarize: true,
		customInstructions: "Focus on the work.",
	});
	assert.equal(model.requests.length, requests + 1, "one model call for the summary");
	assert.ok(JSON.stringify(model.requests.at(-1)!.body).includes("Focus on the work."));
	assert.equal(moved.editorText, "REPLY abandoned work");
	const after = await tree(client, sessionId);
	const summary = after.nodes.find((n) => n.id === moved.summaryEntryId)!;
	assert.equal(summary.kind, "branch_summary");
	assert.equal(summary.parentId, abandoned.parentId);
	assert.equal(after.leafId, summary.id, "the summary is the new leaf");
	const { messages } = await client.ok({ type: "get_messages", sessionId });
	assert.equal(messages.at(-1).role, "branchSummary", "the model sees the summary next");
	const refused = await client.request({ type: "navigate_tree", sessionId, entryId: abandoned.id, customInstructions: "x" });
	assert.equal(refused.code, "invalid_command");
	assert.match(refused.error!, /`customInstructions` is for the branch summary/);
	client.close();
});

test("set_label labels and clears; tree_changed says which", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const watcher = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession(watcher);
	await client.turn(sessionId, "REPLY labelled");
	const target = (await tree(client, sessionId)).nodes.find((n) => n.kind === "user")!;
	const from = watcher.events.length;
	assert.deepEqual(await client.ok({ type: "set_label", sessionId, entryId: target.id, label: "  checkpoint  " }), { entryId: target.id, label: "checkpoint" });
	const event = await watcher.waitForEvent((e) => e.type === "tree_changed" && e.reason === "labelled", 5000, from);
	assert.deepEqual(event.labelled, { entryId: target.id, label: "checkpoint" });
	assert.equal(event.nodes[0].kind, "label");
	assert.equal(event.nodes[0].targetId, target.id);
	assert.equal((await tree(client, sessionId)).nodes.find((n) => n.id === target.id)!.label, "checkpoint");
	assert.deepEqual(await client.ok({ type: "set_label", sessionId, entryId: target.id, label: " " }), { entryId: target.id });
	assert.equal((await tree(client, sessionId)).nodes.find((n) => n.id === target.id)!.label, undefined);
	client.close();
	watcher.close();
});

test("unknown entries and tree changes during a run are refused, and the session file stays as it was", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	await client.turn(sessionId, "REPLY settled");
	const { sessionFile } = await client.ok({ type: "get_state", sessionId });
	const { nodes } = await tree(client, sessionId);
	const before = readFileSync(sessionFile, "utf8");
	for (const command of [
		{ type: "navigate_tree", entryId: "nope1234" },
		{ type: "set_label", entryId: "nope1234", label: "x" },
		{ type: "resend", entryId: "nope1234" },
	]) {
		const response = await client.request({ ...command, sessionId });
		assert.equal(response.code, "not_found", command.type);
		assert.match(response.error!, /Unknown entry nope1234 in session .*: see get_tree/);
	}
	assert.equal(readFileSync(sessionFile, "utf8"), before, "nothing was written for unknown entries");
	const from = client.events.length;
	const release = gate.hold();
	await client.ok({ type: "prompt", sessionId, message: "REPLY held until the checks are done" });
	await client.waitForEvent((e) => e.type === "agent_start" && e.sessionId === sessionId, 10_000, from);
	const mid = readFileSync(sessionFile, "utf8");
	for (const command of [
		{ type: "navigate_tree", entryId: nodes[0]!.id },
		{ type: "set_label", entryId: nodes[0]!.id, label: "x" },
		{ type: "resend", entryId: nodes.find((n) => n.kind === "user")!.id, message: "REPLY too soon" }, // never queued
	]) {
		const response = await client.request({ ...command, sessionId });
		assert.equal(response.code, "busy", command.type);
		assert.match(response.error!, /a run, a compaction or another navigation is in progress/);
	}
	assert.equal(readFileSync(sessionFile, "utf8"), mid, "nothing was written by the refused commands");
	release();
	await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 10_000, from);
	client.close();
});

test("fork works from a user message of a branch that is no longer active", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	await client.turn(sessionId, "REPLY root");
	await client.turn(sessionId, "REPLY old branch");
	const oldUser = (await tree(client, sessionId)).nodes.filter((n) => n.kind === "user")[1]!;
	await client.ok({ type: "navigate_tree", sessionId, entryId: oldUser.id });
	await client.turn(sessionId, "REPLY new branch");
	const forked = await client.ok({ type: "fork", sessionId, entryId: oldUser.id });
	assert.equal(forked.text, "REPLY old branch");
	assert.deepEqual(
		forked.messages.map((m: any) => m.content[0].text),
		["REPLY root", "root"],
		"the fork holds the path before the old branch's message",
	);
	const original = await client.ok({ type: "get_messages", sessionId });
	assert.equal(original.messages.at(-1).content[0].text, "new branch", "the source session is untouched");
	client.close();
});

test("events of the tree are well-formed for a panel: nodes carry ids that get_tree knows", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	await client.turn(sessionId, "CALL read {\"path\":\"nowhere.txt\"}\nAFTER_TOOL missing");
	const known = new Set((await tree(client, sessionId)).nodes.map((n) => n.id));
	const events: Event[] = client.events.filter((e) => e.type === "tree_changed" && e.sessionId === sessionId);
	assert.ok(events.length >= 3);
	for (const event of events) for (const node of event.nodes) assert.ok(known.has(node.id));
	const failed = (await tree(client, sessionId)).nodes.find((n) => n.kind === "toolResult") as Node & { isError?: boolean };
	assert.equal(failed.isError, true);
	client.close();
});

test("abort stops a branch summary under way: the session stays where it was; prompts are refused meanwhile", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	await client.turn(sessionId, "REPLY base");
	await client.turn(sessionId, "REPLY to be summarized");
	const { nodes, leafId } = await tree(client, sessionId);
	const target = nodes.filter((n) => n.kind === "user")[1]!;
	const release = gate.hold(); // the summary's reply waits
	const summaryRequest = model.nextRequest();
	const navigation = client.request({ type: "navigate_tree", sessionId, entryId: target.id, summarize: true });
	await summaryRequest;
	const prompt = await client.request({ type: "prompt", sessionId, message: "too early" });
	assert.equal(prompt.code, "busy");
	assert.match(prompt.error!, /navigate_tree/);
	await client.ok({ type: "abort", sessionId });
	const response = await navigation;
	release();
	assert.equal(response.code, "failed");
	assert.match(response.error!, /aborted while summarizing the branch left; the session stays where it was/);
	const after = await tree(client, sessionId);
	assert.equal(after.leafId, leafId);
	assert.equal(after.nodes.length, nodes.length, "no summary entry");
	client.close();
});

/** A 1×1 PNG, for a prompt whose image regenerate must send again. */
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

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

test("resend refuses an entry that is not a prompt, a blank or extra field, writing nothing (unknown entries and a run: above)", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	await client.turn(sessionId, "REPLY settled");
	const { sessionFile } = await client.ok({ type: "get_state", sessionId });
	const { nodes, leafId } = await tree(client, sessionId);
	const user = nodes.find((n) => n.kind === "user")!;
	const answer = nodes.find((n) => n.kind === "assistant")!;
	const before = readFileSync(sessionFile, "utf8");
	const refusals: Array<[Record<string, unknown>, string, RegExp]> = [
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
	client.close();
});

test("a resend the prompt refuses after the move (a text-only model given the message's images) leaves the session where it was", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const watcher = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession(watcher);
	const from = client.events.length;
	await client.ok({ type: "prompt", sessionId, message: "REPLY seen", images: [{ type: "image", data: PNG_1X1, mimeType: "image/png" }] });
	await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 15_000, from);
	await client.ok({ type: "set_model", sessionId, provider: "fake", modelId: "fake-reasoner" });
	const { sessionFile } = await client.ok({ type: "get_state", sessionId });
	const { nodes, leafId } = await tree(client, sessionId);
	const onDisk = readFileSync(sessionFile, "utf8");
	const moves = watcher.events.length;
	const response = await client.request({ type: "resend", sessionId, entryId: nodes.find((n) => n.kind === "user")!.id });
	assert.equal(response.success, false);
	assert.match(response.error!, /does not take images/);
	assert.equal((await tree(client, sessionId)).leafId, leafId, "the leaf is back where it was");
	const { messages } = await client.ok({ type: "get_messages", sessionId });
	assert.equal(messages.length, 2, "the transcript is the conversation as it was");
	assert.equal(readFileSync(sessionFile, "utf8"), onDisk, "nothing was written");
	const back = await watcher.waitForEvent((e) => e.type === "tree_changed" && e.leafId === leafId, 5_000, moves);
	assert.equal(back.reload, true, "followers reload the conversation they left");
	client.close();
	watcher.close();
});
