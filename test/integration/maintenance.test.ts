/**
 * Maintenance over the protocol: compaction's before → after report, live statistics, the queue of waiting
 * messages (list, cancel one, dropped on abort), pruning old session files, and the doctor.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { ReplyGate } from "../support/reply-gate.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
let skiff: SkiffProcess;
let agentDir: string;
const gate = new ReplyGate();

before(async () => {
	model = await startFakeOpenAi({ onRequest: () => gate.held });
	agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	// A context window large enough that pi never compacts on its own while the history is built.
	const models = join(agentDir, "models.json");
	writeFileSync(models, readFileSync(models, "utf8").replaceAll('"contextWindow": 32000', '"contextWindow": 400000'));
	skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model"] });
});

after(async () => {
	await skiff?.stop();
	await model?.close();
});

/** Texts of every user message the model was sent, in every request so far. */
function userTextsSent(): string {
	return JSON.stringify(model.requests.map((r) => r.body.messages.filter((m: any) => m.role === "user")));
}

test("compact reports the context before and after, and pushes session_stats", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const { sessionId } = await client.ok({ type: "new_session" });
	// More history than pi keeps uncompacted (20,000 tokens, counted as 4 characters each).
	for (let i = 0; i < 3; i++) await client.turn(sessionId, `BENCH 1000 50\nquestion ${i}`);
	const from = client.events.length;
	const report = await client.ok({ type: "compact", sessionId, customInstructions: "Keep the questions." }, 20_000);
	assert.ok(report.tokensBefore > 20_000, `tokensBefore ${report.tokensBefore}`);
	assert.equal(typeof report.tokensAfter, "number");
	assert.ok(report.tokensAfter > 0 && report.tokensAfter < report.tokensBefore, `${report.tokensBefore} → ${report.tokensAfter}`);
	const stats = await client.waitForEvent((e) => e.type === "session_stats" && e.sessionId === sessionId, 5000, from);
	assert.equal(stats.contextUsage.contextWindow, 400_000);
	client.close();
});

test("queue_list and queue_cancel: one waiting follow-up removed, the others delivered unchanged", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const watcher = await TestClient.connect(skiff.wsUrl);
	const { sessionId } = await client.ok({ type: "new_session" });
	await watcher.ok({ type: "subscribe", sessionId });
	assert.deepEqual(await client.ok({ type: "queue_list", sessionId }), { steering: [], followUp: [] });
	const from = client.events.length;
	const release = gate.hold();
	await client.ok({ type: "prompt", sessionId, message: "REPLY an answer held until the queue is edited" });
	await client.waitForEvent((e) => e.type === "agent_start" && e.sessionId === sessionId, 10_000, from);
	for (const text of ["REPLY follow A", "REPLY follow B", "REPLY follow C"]) await client.ok({ type: "follow_up", sessionId, message: text });
	assert.deepEqual(await client.ok({ type: "queue_list", sessionId }), { steering: [], followUp: ["REPLY follow A", "REPLY follow B", "REPLY follow C"] });
	const watched = watcher.events.length;
	const cancelled = await client.ok({ type: "queue_cancel", sessionId, kind: "followUp", index: 1 });
	assert.deepEqual(cancelled, { removed: "REPLY follow B", queue: { steering: [], followUp: ["REPLY follow A", "REPLY follow C"] } });
	const update = await watcher.waitForEvent((e) => e.type === "queue_update" && e.followUp.length === 2, 5000, watched);
	assert.deepEqual(update.followUp, ["REPLY follow A", "REPLY follow C"], "every follower sees the queue change");
	for (const [command, code, pattern] of [
		[{ kind: "followUp", index: 5 }, "not_found", /No follow-up message at index 5: 2 waiting/],
		[{ kind: "steering", index: 0 }, "not_found", /No steering message at index 0: 0 waiting/],
		[{ kind: "later", index: 0 }, "invalid_command", /`kind` must be one of steering, followUp/],
		[{ kind: "followUp", index: -1 }, "invalid_command", /`index`/],
	] as const) {
		const refused = await client.request({ type: "queue_cancel", sessionId, ...command });
		assert.equal(refused.code, code);
		assert.match(refused.error!, pattern);
	}
	// The run delivers A, then C, one per turn; B never reaches the model.
	release();
	await client.waitFor(() => (/follow C/.test(userTextsSent()) ? true : undefined), 20_000, "follow-up C delivered");
	await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 20_000, from);
	const sent = userTextsSent();
	assert.ok(sent.includes("REPLY follow A"));
	assert.ok(!sent.includes("REPLY follow B"), "the cancelled message was never sent");
	client.close();
	watcher.close();
});

test("abort drops the waiting steering and follow-up messages and returns them; they are never sent later", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const { sessionId } = await client.ok({ type: "new_session" });
	const from = client.events.length;
	const release = gate.hold();
	await client.ok({ type: "prompt", sessionId, message: "REPLY an answer held until the abort" });
	await client.waitForEvent((e) => e.type === "agent_start" && e.sessionId === sessionId, 10_000, from);
	await client.ok({ type: "steer", sessionId, message: "steer that was never taken" });
	await client.ok({ type: "follow_up", sessionId, message: "follow-up that was never sent" });
	const aborted = await client.ok({ type: "abort", sessionId });
	release();
	assert.deepEqual(aborted, { dropped: { steering: ["steer that was never taken"], followUp: ["follow-up that was never sent"] } });
	const cleared = client.events.slice(from).filter((e) => e.type === "queue_update").at(-1)!;
	assert.deepEqual([cleared.steering, cleared.followUp], [[], []], "a queue_update shows the queues empty");
	await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 10_000, from);
	await client.turn(sessionId, "REPLY next");
	const sent = userTextsSent();
	assert.ok(!sent.includes("steer that was never taken") && !sent.includes("follow-up that was never sent"));
	assert.deepEqual(await client.ok({ type: "abort", sessionId }), { dropped: { steering: [], followUp: [] } }, "idle: nothing to drop");
	client.close();
});

/** Writes a session file in pi's layout, last modified `days` ago. */
function oldSession(folder: string, id: string, days: number): string {
	const dir = join(agentDir, "sessions", folder);
	mkdirSync(dir, { recursive: true });
	const path = join(dir, `2020-01-01T00-00-00-000Z_${id}.jsonl`);
	writeFileSync(path, `${JSON.stringify({ type: "session", version: 3, id, timestamp: "2020-01-01T00:00:00.000Z", cwd: "/old" })}\n`);
	const when = new Date(Date.now() - days * 24 * 60 * 60 * 1000);
	utimesSync(path, when, when);
	return path;
}

test("sessions_prune lists, then removes, only old session files of the layout: never loaded, linked or foreign files", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const old = oldSession("--old-project--", "old-one", 40);
	const older = oldSession("--old-project--", "old-two", 90);
	const recent = oldSession("--old-project--", "recent", 2);
	// Things that must survive whatever their age.
	const loaded = await client.ok({ type: "new_session" });
	await client.turn(loaded.sessionId, "REPLY keep me");
	const loadedFile = (await client.ok({ type: "get_state", sessionId: loaded.sessionId })).sessionFile;
	const ancient = new Date(Date.now() - 400 * 24 * 60 * 60 * 1000);
	utimesSync(loadedFile, ancient, ancient);
	const outsideDir = tempDir("outside-");
	const outside = join(outsideDir, "2020_outside.jsonl");
	writeFileSync(outside, `${JSON.stringify({ type: "session", version: 3, id: "outside", timestamp: "x", cwd: "/x" })}\n`);
	utimesSync(outside, ancient, ancient);
	symlinkSync(outside, join(agentDir, "sessions", "--old-project--", "2020_linked.jsonl"));
	symlinkSync(outsideDir, join(agentDir, "sessions", "--linked-folder--"));
	const loose = join(agentDir, "sessions", "2020_loose_loose.jsonl");
	writeFileSync(loose, readFileSync(old));
	utimesSync(loose, ancient, ancient);
	const notSession = join(agentDir, "sessions", "--old-project--", "notes.jsonl");
	writeFileSync(notSession, '{"type":"note"}\n');
	utimesSync(notSession, ancient, ancient);

	const listing = () => readdirSync(join(agentDir, "sessions", "--old-project--")).sort();
	const before = listing();
	const dry = await client.ok({ type: "sessions_prune", olderThanDays: 30 });
	assert.equal(dry.dryRun, true);
	assert.deepEqual(dry.sessions.map((s: any) => s.path), [older, old], "oldest first; nothing else qualifies");
	assert.deepEqual(dry.sessions.map((s: any) => s.sessionId), ["old-two", "old-one"]);
	assert.ok(dry.sessions.every((s: any) => s.size > 0 && !Number.isNaN(Date.parse(s.modified))));
	assert.equal(dry.totalBytes, dry.sessions[0].size + dry.sessions[1].size);
	assert.deepEqual(listing(), before, "a dry run removes nothing");

	for (const olderThanDays of [-3, 0]) {
		const refused = await client.request({ type: "sessions_prune", olderThanDays, dryRun: false });
		assert.equal(refused.code, "invalid_command");
		assert.match(refused.error!, new RegExp(`\`olderThanDays\` must be a number of days greater than 0 .*\\(got ${olderThanDays}\\); nothing was removed`));
	}
	assert.deepEqual(listing(), before, "refused: nothing removed");

	const done = await client.ok({ type: "sessions_prune", olderThanDays: 30, dryRun: false });
	assert.equal(done.dryRun, false);
	assert.deepEqual(done.sessions.map((s: any) => s.path), [older, old]);
	assert.deepEqual(done.failed, []);
	assert.ok(!existsSync(old) && !existsSync(older));
	for (const kept of [recent, loadedFile, outside, loose, notSession]) assert.ok(existsSync(kept), `${kept} is kept`);
	assert.equal((await client.request({ type: "switch_session", sessionPath: "old-one" })).code, "unknown_session");
	client.close();
});

test("doctor checks the model, tools, agent dir, listener and memory, and optionally calls the model once", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const requests = model.requests.length;
	const quick = await client.ok({ type: "doctor" });
	assert.equal(model.requests.length, requests, "no model request without checkModel");
	const byId = new Map(quick.checks.map((c: any) => [c.id, c]));
	assert.deepEqual([...byId.keys()], ["model", "rg", "fd", "agent_dir", "listener_auth", "memory"]);
	for (const id of ["model", "agent_dir", "listener_auth", "memory"]) assert.equal((byId.get(id) as any).ok, true, id);
	assert.match((byId.get("model") as any).detail, /fake\/fake-model, which has credentials/);
	assert.match((byId.get("listener_auth") as any).detail, /loopback only, without a token/);
	for (const check of quick.checks) assert.ok(check.ok || check.fix, `${check.id} says how to fix it`);
	const full = await client.ok({ type: "doctor", checkModel: true });
	assert.equal(model.requests.length, requests + 1, "one tiny request");
	const reachable = full.checks.find((c: any) => c.id === "model_reachable");
	assert.equal(reachable.ok, true, reachable.detail);
	assert.equal(model.requests.at(-1)!.body.max_tokens ?? model.requests.at(-1)!.body.max_completion_tokens, 16);
	client.close();
});
