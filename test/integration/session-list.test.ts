/**
 * The session list as a page builds it (issue 22, item 6), through a real skiff: internal sessions (a job's
 * child) carry their kind and parent and are hidden unless asked for, after a restart too; `messageCount` counts
 * what a user sees; search finds titles and message text with a snippet; delete moves a file to the trash and
 * restore puts it back, with their refusals, and other clients hear of both.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { ReplyGate } from "../support/reply-gate.js";
import { baseRepository, removeTempRepos } from "../support/git-repo.js";
import { writeLongSession } from "../support/session-file.js";
import { objective, sessionIn, workflowEvent, writes } from "../support/workflow-client.js";
import { tempDir } from "../support/skiff-process.js";
import { useSkiffStarter } from "../support/skiff-starter.js";
import { type Event, TestClient } from "../support/ws-client.js";

const gate = new ReplyGate();
const service = useSkiffStarter({ onModelRequest: () => gate.held });
const start = () => service.start();

after(() => removeTempRepos());

async function say(client: TestClient, sessionId: string, text: string): Promise<void> {
	const from = client.events.length;
	await client.ok({ type: "prompt", sessionId, message: text });
	await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 20_000, from);
}

const jobDone = (jobId: string) => (e: Event) => e.type === "job_updated" && e.job.id === jobId && ["completed", "failed"].includes(e.job.status);

test("a job's child is listed only with `internal`, as kind job under its parent, and keeps its kind after a restart", async () => {
	let { skiff, client } = await start();
	const parent = await client.ok({ type: "new_session" });
	await say(client, parent.sessionId, "REPLY parent answer\nPARENT-TITLE question");
	const from = client.events.length;
	const { jobs } = await client.ok({ type: "task_spawn", sessionId: parent.sessionId, task: "REPLY child answer\nchild-only words" });
	const job = (await client.waitForEvent(jobDone(jobs[0].id), 30_000, from)).job;
	assert.equal(job.status, "completed");
	await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === parent.sessionId, 20_000, from); // the parent woke

	const check = async (c: TestClient) => {
		const shown = (await c.ok({ type: "session_list" })).sessions;
		assert.ok(!shown.some((s: any) => s.sessionId === job.sessionId), "hidden by default");
		const parentRow = shown.find((s: any) => s.sessionId === parent.sessionId);
		assert.equal(parentRow.kind, "user");
		const all = (await c.ok({ type: "session_list", internal: true })).sessions;
		const child = all.find((s: any) => s.sessionId === job.sessionId);
		assert.equal(child.kind, "job");
		assert.equal(child.parentSessionId, parent.sessionId);
		assert.equal(child.ownerId, job.id);
		assert.equal(child.messageCount, 2, "its task and its reply");
		assert.ok(!(await c.ok({ type: "session_list", scope: "all" })).sessions.some((s: any) => s.sessionId === job.sessionId));
		// Search likewise: the child's words are found only with `internal` (its task's second line: the parent's job
		// card and its reply to the result show the task's first line and the result).
		assert.deepEqual((await c.ok({ type: "session_search", query: "child-only words" })).hits, []);
		const found = await c.ok({ type: "session_search", query: "child-only words", internal: true });
		assert.deepEqual(found.hits.map((h: any) => [h.session.sessionId, h.session.kind]), [[job.sessionId, "job"]]);
	};
	await check(client);
	client.close();
	await skiff.stop();
	({ skiff, client } = await start());
	await check(client);
	// A fork of the child is a user's session again (the copied record names another session).
	const forked = await client.ok({ type: "fork", sessionId: job.sessionId, entryId: (await client.ok({ type: "get_fork_messages", sessionId: job.sessionId })).messages[0].entryId });
	await say(client, forked.sessionId, "REPLY fork answer\nfork question");
	const row = (await client.ok({ type: "session_list" })).sessions.find((s: any) => s.sessionId === forked.sessionId);
	assert.equal(row.kind, "fork");
	assert.equal(row.parentSessionId, job.sessionId);
	client.close();
});

test("a workflow's supervisor and worker are listed only with `internal`, as kind workflow under the session that made it", async () => {
	const { client } = await start();
	const repo = baseRepository();
	const sessionId = await sessionIn(client, repo);
	const from = client.events.length;
	const list = [{ phase: "Build", items: [writes("b.txt", "from t1\n")] }];
	const { workflow } = await client.ok({ type: "workflow_create", sessionId, name: "one file", objective: objective(list) });
	const done = (await workflowEvent(workflow.id, "completed", from, client)).workflow;
	const made = [done.supervisor.sessionId, done.workers[0].sessionId];
	const rows = (await client.ok({ type: "session_list", scope: "all", internal: true })).sessions.filter((s: any) => made.includes(s.sessionId));
	assert.deepEqual(rows.map((r: any) => [r.kind, r.parentSessionId, r.ownerId]), [0, 1].map(() => ["workflow", sessionId, workflow.id]));
	const shown = (await client.ok({ type: "session_list", scope: "all" })).sessions;
	assert.ok(!shown.some((s: any) => made.includes(s.sessionId)), "hidden by default");
	assert.ok(shown.some((s: any) => s.sessionId === sessionId));
	client.close();
});

test("messageCount counts user and assistant messages, not tool results", async () => {
	const { client } = await start();
	const { sessionId } = await client.ok({ type: "new_session" });
	writeFileSync(join(service.cwd, "note.txt"), "hello\n");
	await say(client, sessionId, `CALL read ${JSON.stringify({ path: "note.txt" })}\nread it`);
	const messages = (await client.ok({ type: "get_messages", sessionId })).messages;
	assert.deepEqual(
		messages.map((m: any) => m.role),
		["user", "assistant", "toolResult", "assistant"],
	);
	const row = (await client.ok({ type: "session_list" })).sessions.find((s: any) => s.sessionId === sessionId);
	assert.equal(row.messageCount, 3);
	// The row of the loaded session before anything is recorded counts the same way (nothing yet).
	const fresh = await client.ok({ type: "new_session" });
	assert.equal((await client.ok({ type: "session_list" })).sessions.find((s: any) => s.sessionId === fresh.sessionId).messageCount, 0);
	client.close();
});

test("a goal paused in a session that is not loaded is in its row, read from the file's goal journal without loading it", async () => {
	const { client } = await start();
	const made = async (change?: (sessionId: string) => Promise<unknown>) => {
		const { sessionId } = await client.ok({ type: "new_session" });
		await say(client, sessionId, "REPLY noted\nwork on it");
		await change?.(sessionId);
		await client.ok({ type: "close_session", sessionId });
		return sessionId;
	};
	const create = (sessionId: string) => client.ok({ type: "goal_create", sessionId, objective: "Ship the release" });
	const paused = await made(async (sessionId) => (await create(sessionId), client.ok({ type: "goal_pause", sessionId })));
	const active = await made(create);
	const resumed = await made(async (sessionId) => {
		await create(sessionId);
		await client.ok({ type: "goal_pause", sessionId });
		await client.ok({ type: "goal_resume", sessionId });
		await client.ok({ type: "goal_complete", sessionId });
	});
	const none = await made();
	const rows = (await client.ok({ type: "session_list" })).sessions;
	const row = (id: string) => rows.find((s: any) => s.sessionId === id);
	assert.deepEqual(
		[paused, active, resumed, none].map((id) => [row(id).loaded, row(id).goal]),
		[[false, { lifecycle: "paused", pauseReason: "manual" }], [false, { lifecycle: "active" }], [false, { lifecycle: "completed" }], [false, undefined]],
	);
	// Opened again, the active goal pauses (resume_safety), and the list says so once the session is closed again.
	await client.ok({ type: "goal_get", sessionId: active });
	await client.ok({ type: "close_session", sessionId: active });
	const reopened = (await client.ok({ type: "session_list" })).sessions.find((s: any) => s.sessionId === active);
	assert.deepEqual(reopened.goal, { lifecycle: "paused", pauseReason: "resume_safety" });
	client.close();
});

test("`recorded` tells the fresh, empty session each start opens from sessions on disk", async () => {
	const { client } = await start();
	const primary = await client.ok({ type: "get_state" });
	const { sessionId } = await client.ok({ type: "new_session" });
	await say(client, sessionId, "REPLY kept\nrecorded question");
	const rows = (await client.ok({ type: "session_list" })).sessions;
	const row = (id: string) => rows.find((s: any) => s.sessionId === id);
	assert.deepEqual([row(primary.sessionId).recorded, row(primary.sessionId).messageCount], [false, 0], "the start's session holds nothing yet");
	assert.equal(row(sessionId).recorded, true);
	client.close();
});

test("search finds a title or message text, any case, plain text, with a snippet; across projects with scope all", async () => {
	const { client } = await start();
	const other = tempDir();
	writeLongSession(service.agentDir, other, "elsewhere-session", 6); // "Answer 5: it works like **this**…"
	const { sessionId } = await client.ok({ type: "new_session" });
	await say(client, sessionId, "REPLY The Zebra crossing is near the MARKET square.\nwhere is the zebra-title crossing?");

	const byTitle = await client.ok({ type: "session_search", query: "ZEBRA-TITLE" });
	assert.equal(byTitle.hits.length, 1);
	assert.equal(byTitle.hits[0].session.sessionId, sessionId);
	assert.equal(byTitle.hits[0].matchedIn, "title");
	assert.match(byTitle.hits[0].snippet, /zebra-title crossing/);

	// A named session's title is its name: its first message is searched as message text.
	const named = await client.ok({ type: "new_session" });
	await say(client, named.sessionId, "REPLY The ferry leaves from the HARBOUR gate.\nwhen does it leave?");
	await client.ok({ type: "set_session_name", sessionId: named.sessionId, name: "Holiday" });
	const byText = await client.ok({ type: "session_search", query: "harbour GATE" });
	assert.deepEqual(byText.hits.map((h: any) => h.session.sessionId), [named.sessionId]);
	assert.equal(byText.hits[0].matchedIn, "message");
	assert.match(byText.hits[0].snippet, /from the HARBOUR gate/);
	assert.equal(byText.truncated, false);
	assert.equal((await client.ok({ type: "session_search", query: "holiday" })).hits[0].matchedIn, "title");

	assert.equal((await client.ok({ type: "session_search", query: ".*" })).hits.length, 0, "no patterns");
	assert.equal((await client.ok({ type: "session_search", query: "part 4 work" })).hits.length, 0, "another project's");
	const across = await client.ok({ type: "session_search", query: "part 4 work", scope: "all" });
	assert.deepEqual(across.hits.map((h: any) => h.session.sessionId), ["elsewhere-session"]);
	assert.match(across.hits[0].snippet, /Question number 2: how does part 4 work\?/);
	const limited = await client.ok({ type: "session_search", query: "e", scope: "all", limit: 1 });
	assert.equal(limited.hits.length, 1);
	assert.equal(limited.truncated, true);
	assert.match((await client.request({ type: "session_search", query: "" })).error ?? "", /query/);
	client.close();
});

test("delete moves a session to the trash and restore puts it back; refusals say why; other clients hear of both", async () => {
	const { skiff, client } = await start();
	const watcher = await TestClient.connect(skiff.wsUrl);
	const primary = await watcher.ok({ type: "get_state" });
	await watcher.ok({ type: "subscribe" });
	const victim = await client.ok({ type: "new_session" });
	await say(client, victim.sessionId, "REPLY doomed answer\ndoomed question");
	const path = victim.state.sessionFile ?? (await client.ok({ type: "get_state", sessionId: victim.sessionId })).sessionFile;
	assert.ok(existsSync(path));

	// Refusals: no confirmation, the primary, a busy session, a session with nothing recorded, an unknown one.
	assert.match((await client.request({ type: "session_delete", sessionId: victim.sessionId })).error ?? "", /confirm/);
	const refused = await client.request({ type: "session_delete", sessionId: primary.sessionId, confirm: true });
	assert.equal(refused.code, "conflict");
	assert.match(refused.error ?? "", /primary session cannot be deleted/);
	const release = gate.hold();
	const from = client.events.length;
	await client.ok({ type: "prompt", sessionId: victim.sessionId, message: "REPLY later\nstill busy" });
	const busy = await client.request({ type: "session_delete", sessionId: victim.sessionId, confirm: true });
	assert.equal(busy.code, "busy");
	release();
	await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === victim.sessionId, 20_000, from);
	const empty = await client.ok({ type: "new_session" });
	assert.equal((await client.request({ type: "session_delete", sessionId: empty.sessionId, confirm: true })).code, "conflict");
	assert.equal((await client.request({ type: "session_delete", sessionId: "no-such-session", confirm: true })).code, "unknown_session");
	assert.ok(existsSync(path), "nothing moved by a refusal");

	const heard = watcher.events.length;
	const trashed = await client.ok({ type: "session_delete", sessionId: victim.sessionId, confirm: true });
	assert.equal(trashed.sessionId, victim.sessionId);
	assert.equal(trashed.originalPath, path);
	assert.equal(trashed.title, "REPLY doomed answer", "the first line of its first message");
	assert.ok(!existsSync(path), "moved, on disk once acknowledged");
	const folder = join(service.agentDir, "trash", "sessions", trashed.trashId);
	assert.ok(readdirSync(folder).some((n) => n.endsWith(".jsonl")), "kept in the trash");
	assert.ok(client.events.some((e) => e.type === "session_unloaded" && e.sessionId === victim.sessionId && e.reason === "deleted"));
	await watcher.waitForEvent((e) => e.type === "session_list_changed" && e.change === "deleted" && e.changedSessionId === victim.sessionId, 5000, heard);
	assert.ok(!(await client.ok({ type: "session_list" })).sessions.some((s: any) => s.sessionId === victim.sessionId));
	assert.equal((await client.request({ type: "get_state", sessionId: victim.sessionId })).code, "unknown_session");
	assert.deepEqual((await client.ok({ type: "session_trash_list" })).sessions.map((s: any) => s.trashId), [trashed.trashId]);

	const restored = await client.ok({ type: "session_restore", trashId: trashed.trashId });
	assert.equal(restored.sessionId, victim.sessionId);
	assert.ok(existsSync(path));
	await watcher.waitForEvent((e) => e.type === "session_list_changed" && e.change === "restored" && e.changedSessionId === victim.sessionId, 5000, heard);
	assert.ok((await client.ok({ type: "session_list" })).sessions.some((s: any) => s.sessionId === victim.sessionId));
	assert.equal((await client.ok({ type: "get_messages", sessionId: victim.sessionId })).messages.length, 4);
	assert.equal((await client.request({ type: "session_restore", trashId: trashed.trashId })).code, "not_found");
	assert.equal((await client.request({ type: "session_restore", trashId: "../../etc" })).code, "not_found");

	// A file at the original path blocks a restore; the trash keeps the session.
	await client.ok({ type: "close_session", sessionId: victim.sessionId });
	const again = await client.ok({ type: "session_delete", sessionId: victim.sessionId, confirm: true });
	mkdirSync(join(path, ".."), { recursive: true });
	writeFileSync(path, "someone else's file\n");
	const blocked = await client.request({ type: "session_restore", trashId: again.trashId });
	assert.equal(blocked.code, "conflict");
	assert.ok((await client.ok({ type: "session_trash_list" })).sessions.some((s: any) => s.trashId === again.trashId));
	client.close();
	watcher.close();
});
