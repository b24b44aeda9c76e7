/**
 * Workflows against the real service and the fake model, in temporary git repositories: a supervisor plans
 * with the todo tool, jobs do the ready tasks (those running at once each in a checkout of its own), and the
 * branch is integrated back; a real conflict is reported with its files and leaves the base clean; a restart
 * in the middle pauses the workflow where it was, and it resumes; bad input is refused with nothing
 * half-created.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, type RecordedRequest, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { objective, sessionIn, workflowEvent, writes } from "../support/workflow-client.js";
import { TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
let skiff: SkiffProcess;
let agentDir: string;
/** While set, the fake model holds the replies `held` picks until it settles. */
let gate: { promise: Promise<void>; held: (request: RecordedRequest) => boolean } | undefined;

function hold(held: (request: RecordedRequest) => boolean = () => true): () => void {
	let release!: () => void;
	gate = { promise: new Promise((resolve) => (release = resolve)), held };
	return () => {
		gate = undefined;
		release();
	};
}

/** A request of one of a workflow's task jobs (their system prompt says so). */
const isWorker = (request: RecordedRequest) => JSON.stringify(request.body.messages[0]).includes("one task of a workflow");

const git = (dir: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", ...args], { cwd: dir, encoding: "utf8" });

function repository(): string {
	const dir = tempDir("skiff-wf-repo-");
	git(dir, "init", "-q", "-b", "main");
	writeFileSync(join(dir, "a.txt"), "one\ntwo\nthree\n");
	git(dir, "add", "-A");
	git(dir, "commit", "-q", "-m", "first");
	return dir;
}


before(async () => {
	model = await startFakeOpenAi({ onRequest: (request) => (gate?.held(request) ? gate.promise : undefined) });
	agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model"] });
});

after(async () => {
	await skiff?.stop();
	await model?.close();
});


test("a workflow plans, runs its tasks in a worktree, integrates by fast-forward, and is removed with its worktree", async () => {
	const repo = repository();
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await sessionIn(client, repo);
	const from = client.events.length;
	const list = [{ phase: "Build", items: [writes("b.txt", "from t1\n"), { content: writes("c.txt", "from t2\n"), dependsOn: [writes("b.txt", "from t1\n")] }] }];
	const { workflow: created } = await client.ok({ type: "workflow_create", sessionId, name: "two files", objective: objective(list) });
	assert.equal(created.isolation, "worktree");
	assert.equal(created.git.branch, `skiff/workflow/${created.id}`);
	assert.ok(["queued", "planning"].includes(created.status));
	const done = (await workflowEvent(created.id, "completed", from, client)).workflow;

	// Every state passed in order, and the plan was shown as the supervisor made it.
	const statuses = client.events.slice(from).filter((e) => e.type === "workflow_updated" && e.workflow.id === created.id).map((e) => e.workflow.status);
	const order = [...new Set(statuses)];
	assert.deepEqual(order, ["queued", "planning", "running", "integrating", "completed"]);
	assert.equal(done.supervisor.status, "completed");
	assert.ok(done.supervisor.toolCalls >= 1);
	assert.deepEqual(done.phases[0].tasks.map((t: any) => t.status), ["completed", "completed"]);
	assert.deepEqual(done.workers.map((w: any) => [w.taskId, w.status]), [["t1", "completed"], ["t2", "completed"]]);
	assert.deepEqual(done.actions, ["remove"]);
	assert.equal(done.integration.method, "fast-forward");
	assert.deepEqual({ files: done.integration.filesChanged, ins: done.integration.insertions, del: done.integration.deletions, conflicts: done.integration.conflicts }, { files: 2, ins: 2, del: 0, conflicts: [] });

	// The base took the work, one commit per task, and is clean.
	assert.equal(readFileSync(join(repo, "b.txt"), "utf8"), "from t1\n");
	assert.equal(readFileSync(join(repo, "c.txt"), "utf8"), "from t2\n");
	assert.match(git(repo, "log", "--format=%s", "-3"), /^t2: CALL write .*\nt1: CALL write .*\nfirst\n$/);
	assert.equal(git(repo, "status", "--porcelain"), "");
	assert.equal(git(repo, "rev-parse", "HEAD").trim(), done.integration.commit);

	// The supervisor was a read-only planner with the todo tool; its workers worked in the worktree.
	const supervisorRequest = model.requests.find((r) => JSON.stringify(r.body.messages[0]).includes("supervisor of a workflow"))!;
	const tools = supervisorRequest.body.tools.map((t: any) => t.function.name);
	assert.ok(tools.includes("todo") && tools.includes("read") && !tools.includes("write") && !tools.includes("bash"));
	const got = await client.ok({ type: "workflow_get", workflowId: created.id });
	assert.deepEqual(got.workflow, done);
	assert.equal((await client.ok({ type: "workflow_list" })).workflows[0].id, created.id);

	const removedFrom = client.events.length;
	const removed = await client.ok({ type: "workflow_remove", workflowId: created.id });
	assert.deepEqual(removed, { workflowId: created.id });
	await client.waitForEvent((e) => e.type === "workflow_updated" && e.workflow.id === created.id && e.removed === true, 10_000, removedFrom);
	assert.ok(!existsSync(join(agentDir, "workflows", created.id)), "its folder and worktree are gone");
	assert.ok(!git(repo, "worktree", "list").includes(created.id));
	assert.equal(git(repo, "branch", "--list", "skiff/*"), "", "its merged branch is deleted");
	assert.equal((await client.request({ type: "workflow_get", workflowId: created.id })).code, "not_found");
	client.close();
});

test("two independent tasks run at once, each in a checkout of its own: each task's commit holds exactly its own file", async () => {
	const repo = repository();
	const meet = tempDir("skiff-wf-meet-");
	// Each task's command writes its file, says it runs, and waits (bounded) for the other to run too: both
	// record that they saw the other, so they ran at once.
	const task = (name: string, other: string) =>
		`RUN echo ${name} > ${name}.txt && touch ${meet}/${name} && for i in $(seq 400); do [ -e ${meet}/${other} ] && touch ${meet}/${name}-saw-${other} && break; sleep 0.05; done`;
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await sessionIn(client, repo);
	const from = client.events.length;
	const list = [{ phase: "Both", items: [task("one", "two"), task("two", "one")] }];
	const { workflow } = await client.ok({ type: "workflow_create", sessionId, name: "at once", objective: objective(list) });
	const done = (await workflowEvent(workflow.id, "completed", from, client)).workflow;
	assert.ok(existsSync(join(meet, "one-saw-two")) && existsSync(join(meet, "two-saw-one")), "the two tasks ran at the same time");
	assert.deepEqual(done.workers.map((w: any) => w.taskId).sort(), ["t1", "t2"], "each task ran once");

	const commitOf = (subject: string) => git(repo, "log", "--format=%H", "--fixed-strings", "--grep", subject, "main").trim();
	const filesOf = (commit: string) => git(repo, "show", "--name-only", "--format=", commit).trim();
	assert.equal(filesOf(commitOf("t1: RUN echo one")), "one.txt");
	assert.equal(filesOf(commitOf("t2: RUN echo two")), "two.txt");
	assert.equal(readFileSync(join(repo, "one.txt"), "utf8"), "one\n");
	assert.equal(readFileSync(join(repo, "two.txt"), "utf8"), "two\n");
	assert.equal(git(repo, "status", "--porcelain"), "");
	assert.ok(!existsSync(join(agentDir, "workflows", workflow.id, "tasks", "t1")) && !existsSync(join(agentDir, "workflows", workflow.id, "tasks", "t2")), "the tasks' checkouts are gone");
	client.close();
});

test("a real conflict is reported with its files, nothing is merged, and integrating again after the base is fixed completes", async () => {
	const repo = repository();
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await sessionIn(client, repo);
	const from = client.events.length;
	const release = hold();
	let id: string;
	try {
		const list = [{ phase: "Edit", items: [writes("a.txt", "one\nworkflow\nthree\n")] }];
		id = (await client.ok({ type: "workflow_create", sessionId, name: "conflicting", objective: objective(list) })).workflow.id;
		// Meanwhile the base changes the same line.
		writeFileSync(join(repo, "a.txt"), "one\nbase\nthree\n");
		git(repo, "commit", "-q", "-am", "base change");
	} finally {
		release();
	}
	const conflicted = (await workflowEvent(id, "conflicted", from, client)).workflow;
	assert.deepEqual(conflicted.integration.conflicts, ["a.txt"]);
	assert.match(conflicted.reason, /a\.txt conflict\. Nothing was merged/);
	assert.deepEqual(conflicted.actions, ["integrate", "cancel", "remove"]);
	assert.equal(git(repo, "status", "--porcelain"), "", "the base is clean");
	assert.ok(!existsSync(join(repo, ".git", "MERGE_HEAD")), "and not in the middle of a merge");
	assert.equal(readFileSync(join(repo, "a.txt"), "utf8"), "one\nbase\nthree\n");
	assert.equal(git(join(agentDir, "workflows", id, "worktree"), "status", "--porcelain"), "", "the worktree's merge was aborted");

	// The base drops its change: integrating again takes the workflow's work.
	git(repo, "reset", "-q", "--hard", "HEAD~1");
	const { workflow } = await client.ok({ type: "workflow_integrate", workflowId: id });
	assert.equal(workflow.status, "completed");
	assert.equal(workflow.integration.method, "fast-forward");
	assert.equal(readFileSync(join(repo, "a.txt"), "utf8"), "one\nworkflow\nthree\n");
	assert.equal(git(repo, "status", "--porcelain"), "");
	client.close();
});

// SIGKILL (a crash), and SIGTERM (a graceful stop, which interrupts the jobs: their ends do not fail the workflow).
for (const signal of ["SIGKILL", "SIGTERM"] as const) test(`a restart (${signal}) while a task runs leaves the workflow paused where it was; it resumes and completes`, async () => {
	const dir = tempDir();
	writeFakeModelsJson(dir, model.url);
	const repo = repository();
	const first = await startSkiff({ agentDir: dir, cwd: repo, args: ["--model", "fake/fake-model"] });
	let id: string;
	const release = hold(isWorker);
	try {
		const client = await TestClient.connect(first.wsUrl);
		const sessionId = await sessionIn(client, repo);
		const list = [{ phase: "Build", items: [writes("r.txt", "resumed\n")] }];
		id = (await client.ok({ type: "workflow_create", sessionId, name: "restarted", objective: objective(list) })).workflow.id;
		await client.waitForEvent((e) => e.type === "workflow_updated" && e.workflow.id === id && e.workflow.workers[0]?.sessionId !== undefined, 30_000);
		client.close();
		assert.equal(await first.stop(signal), signal === "SIGKILL" ? null : 0);
	} finally {
		release();
	}
	const stored = JSON.parse(readFileSync(join(dir, "workflows", id, "workflow.json"), "utf8"));
	assert.equal(stored.workflow.status, "running", `the record was durable before the stop, which left it running (${stored.workflow.reason})`);
	const second = await startSkiff({ agentDir: dir, cwd: repo, args: ["--model", "fake/fake-model"] });
	try {
		const client = await TestClient.connect(second.wsUrl);
		const paused = (await client.ok({ type: "workflow_get", workflowId: id })).workflow;
		assert.equal(paused.status, "paused");
		assert.match(paused.reason, /service stopped while it was running/);
		assert.equal(paused.workers[0].status, "interrupted");
		assert.equal(paused.phases[0].tasks[0].status, "pending", "the task no job runs any more is open again");
		assert.deepEqual(paused.actions, ["resume", "integrate", "cancel"]);
		const from = client.events.length;
		const resumed = (await client.ok({ type: "workflow_resume", workflowId: id })).workflow;
		assert.equal(resumed.status, "running");
		const done = (await workflowEvent(id, "completed", from, client)).workflow;
		assert.equal(done.workers.length, 2);
		assert.equal(readFileSync(join(repo, "r.txt"), "utf8"), "resumed\n");
		client.close();
	} finally {
		await second.stop();
	}
});

test("a graceful stop (SIGTERM) while the supervisor plans leaves the workflow paused, not failed; resuming plans again", async () => {
	const dir = tempDir();
	writeFakeModelsJson(dir, model.url);
	const repo = repository();
	const first = await startSkiff({ agentDir: dir, cwd: repo, args: ["--model", "fake/fake-model"] });
	let id: string;
	const release = hold((request) => JSON.stringify(request.body.messages[0]).includes("supervisor of a workflow"));
	try {
		const client = await TestClient.connect(first.wsUrl);
		const sessionId = await sessionIn(client, repo);
		const list = [{ phase: "Build", items: [writes("p.txt", "planned again\n")] }];
		id = (await client.ok({ type: "workflow_create", sessionId, name: "planning", objective: objective(list) })).workflow.id;
		await client.waitForEvent((e) => e.type === "workflow_updated" && e.workflow.id === id && e.workflow.supervisor?.sessionId !== undefined, 30_000);
		client.close();
		assert.equal(await first.stop("SIGTERM"), 0);
	} finally {
		release();
	}
	const second = await startSkiff({ agentDir: dir, cwd: repo, args: ["--model", "fake/fake-model"] });
	try {
		const client = await TestClient.connect(second.wsUrl);
		const paused = (await client.ok({ type: "workflow_get", workflowId: id })).workflow;
		assert.equal(paused.status, "paused", paused.reason);
		assert.match(paused.reason, /service stopped while it was planning/);
		const from = client.events.length;
		assert.equal((await client.ok({ type: "workflow_resume", workflowId: id })).workflow.status, "planning");
		await workflowEvent(id, "completed", from, client);
		assert.equal(readFileSync(join(repo, "p.txt"), "utf8"), "planned again\n");
		client.close();
	} finally {
		await second.stop();
	}
});

test("bad input is refused clearly with nothing half-created; isolation none works in a plain directory", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const entries = () => (existsSync(join(agentDir, "workflows")) ? readdirSync(join(agentDir, "workflows")).sort() : []);
	const before = entries();

	const plain = tempDir("skiff-wf-plain-");
	const plainSession = await sessionIn(client, plain);
	const notGit = await client.request({ type: "workflow_create", sessionId: plainSession, name: "x", objective: "y" });
	assert.equal(notGit.code, "invalid_command");
	assert.match(notGit.error!, /is not in a git repository: .* Use isolation "none"/);

	const repo = repository();
	const repoSession = await sessionIn(client, repo);
	writeFileSync(join(repo, "a.txt"), "dirty\n");
	const dirty = await client.request({ type: "workflow_create", sessionId: repoSession, name: "x", objective: "y" });
	assert.equal(dirty.code, "conflict");
	assert.match(dirty.error!, /has uncommitted changes \(a\.txt\): commit or stash them first/);
	assert.equal(git(repo, "branch", "--list", "skiff/*"), "");
	assert.equal(git(repo, "worktree", "list").trim().split("\n").length, 1);
	assert.deepEqual(entries(), before, "nothing was recorded");

	assert.equal((await client.request({ type: "workflow_create", sessionId: repoSession, name: "../x", objective: "y" })).code, "invalid_command");
	assert.equal((await client.request({ type: "workflow_pause", workflowId: "wf-000000000000" })).code, "not_found");

	// Isolation none: the jobs work in the directory itself; there is nothing to integrate.
	let from = client.events.length;
	const list = [{ phase: "Here", items: [writes("here.txt", "in place\n")] }];
	const none = (await client.ok({ type: "workflow_create", sessionId: plainSession, name: "in place", objective: objective(list), isolation: "none" })).workflow;
	assert.equal(none.git, undefined);
	const done = (await workflowEvent(none.id, "completed", from, client)).workflow;
	assert.equal(done.integration.method, "none");
	assert.equal(readFileSync(join(plain, "here.txt"), "utf8"), "in place\n");

	// Actions in the wrong state name the state and what is allowed.
	const resume = await client.request({ type: "workflow_resume", workflowId: none.id });
	assert.equal(resume.code, "conflict");
	assert.equal(resume.error, "A workflow that is completed cannot be resumed (allowed now: remove)");
	assert.equal((await client.request({ type: "workflow_cancel", workflowId: none.id })).code, "conflict");

	// A supervisor whose tool calls keep failing is stopped, and the workflow fails saying why.
	from = client.events.length;
	const failing = [1, 2, 3].map((n) => `CALL read ${JSON.stringify({ path: `missing-${n}.txt` })}`).join("\n");
	const stuck = (await client.ok({ type: "workflow_create", sessionId: plainSession, name: "stuck", objective: failing, isolation: "none" })).workflow;
	const failed = (await workflowEvent(stuck.id, "failed", from, client)).workflow;
	assert.match(failed.reason, /The supervisor was stopped: 3 of its tool calls failed in a row \(workflows\.supervisorMaxFailures\)/);
	assert.deepEqual(failed.actions, ["remove"]);
	client.close();
});
