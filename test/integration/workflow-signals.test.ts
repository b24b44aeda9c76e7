/**
 * Signals to the real service while a workflow integrates, in real repositories whose reference-transaction
 * hook holds the fast-forward of `main` (after git wrote the new files and the index, before main moves):
 *
 * - SIGINT to skiff's process group (Ctrl-C): the shutdown waits for the integration, which completes;
 * - SIGKILL to skiff and to git's group (everything gone at once): the next start puts the base back and
 *   names the lock files git left, with the command that removes them; integrating again then completes;
 * - SIGTERM twice (the second exits without waiting, stopping git): the next start puts the base back and
 *   the workflow is paused, to be integrated again;
 * - SIGTERM while a task runs: the workflow is found paused, not failed.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, type RecordedRequest, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { alive, baseRepository, holdMoves, processGroupOf, removeTempRepos, sh } from "../support/git-repo.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { until } from "../support/until.js";
import { objective, sessionIn, workflowEvent, writes } from "../support/workflow-client.js";
import { TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
/** While set, the fake model holds the workers' replies until it is released. */
let heldWorkers: Promise<void> | undefined;

before(async () => {
	model = await startFakeOpenAi({
		onRequest: (request: RecordedRequest) => (heldWorkers && JSON.stringify(request.body.messages[0]).includes("one task of a workflow") ? heldWorkers : undefined),
	});
});

after(async () => {
	await model?.close();
	removeTempRepos();
});

/** A skiff of its own (in a process group of its own) working in `repo`. */
async function skiffIn(agentDir: string, repo: string): Promise<SkiffProcess> {
	writeFakeModelsJson(agentDir, model.url);
	return startSkiff({ agentDir, cwd: repo, args: ["--model", "fake/fake-model"], ownGroup: true });
}

/** Creates a one-task workflow writing w.txt and waits until the hook holds its fast-forward of main. */
async function integrationHeld(skiff: SkiffProcess, repo: string, hook: { pidFile: string }): Promise<{ id: string; client: TestClient }> {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await sessionIn(client, repo);
	const list = [{ phase: "Work", items: [writes("w.txt", "the workflow's\n")] }];
	const { workflow } = await client.ok({ type: "workflow_create", sessionId, name: "held", objective: objective(list) });
	await until(() => existsSync(hook.pidFile) && readFileSync(hook.pidFile, "utf8").trim() !== "", "the hook to hold the fast-forward");
	assert.notEqual(sh(repo, "status", "--porcelain"), "", "git has written the new files and the index, and holds main");
	return { id: workflow.id, client };
}

function recordOf(agentDir: string, id: string): { status: string; reason?: string } {
	return JSON.parse(readFileSync(join(agentDir, "workflows", id, "workflow.json"), "utf8")).workflow;
}

test("SIGINT to skiff's process group while git fast-forwards the base: the shutdown waits and the integration completes", async () => {
	const repo = baseRepository();
	const hook = holdMoves(repo);
	const agentDir = tempDir();
	const skiff = await skiffIn(agentDir, repo);
	try {
		const { id, client } = await integrationHeld(skiff, repo, hook);
		const exited = skiff.signalGroup("SIGINT");
		await until(() => skiff.stderr().includes("SIGINT: stopping"), "skiff to start stopping");
		assert.equal(skiff.child.exitCode, null, "skiff waits for the integration");
		assert.ok(alive(hook.pid()), "and git with it");
		hook.release();
		assert.equal(await exited, 0);
		client.close();

		const record = recordOf(agentDir, id);
		assert.equal(record.status, "completed", record.reason);
		assert.equal(sh(repo, "rev-parse", "main").trim(), sh(repo, "rev-parse", `skiff/workflow/${id}`).trim());
		assert.equal(sh(repo, "status", "--porcelain"), "", "not half-merged");
		assert.equal(readFileSync(join(repo, "w.txt"), "utf8"), "the workflow's\n");
	} finally {
		await skiff.stop("SIGKILL");
	}
});

test("SIGKILL to skiff and to git while git fast-forwards the base: the next start puts the base back and names git's lock files", async () => {
	const repo = baseRepository();
	const before = sh(repo, "rev-parse", "main").trim();
	const hook = holdMoves(repo);
	const agentDir = tempDir();
	const first = await skiffIn(agentDir, repo);
	let id: string;
	try {
		const held = await integrationHeld(first, repo, hook);
		id = held.id;
		held.client.close();
		const git = processGroupOf(hook.pid());
		const hookPid = hook.pid();
		assert.equal(await first.stop("SIGKILL"), null);
		process.kill(-git, "SIGKILL");
		await until(() => !alive(hookPid), "git and its hook to be gone");
	} finally {
		await first.stop("SIGKILL");
	}
	const locks = [join(repo, ".git", "HEAD.lock"), join(repo, ".git", "refs", "heads", "main.lock")];
	assert.ok(locks.every((lock) => existsSync(lock)), "the killed git left its locks");
	assert.equal(sh(repo, "status", "--porcelain"), "A  w.txt\n", "and the base half-merged");

	const second = await skiffIn(agentDir, repo);
	try {
		const client = await TestClient.connect(second.wsUrl);
		await until(() => recordOf(agentDir, id).status !== "integrating", "the interrupted integration to be settled");
		const { workflow } = await client.ok({ type: "workflow_get", workflowId: id });
		assert.equal(workflow.status, "conflicted");
		assert.equal(
			workflow.reason,
			`The service stopped while it moved main to the integrated commit. main was not moved and the base checkout is as it was (skiff put back w.txt): nothing was merged. But ${locks.join(", ")} exist: a git command is running in ${repo}, or one was stopped before it could remove them. If none runs there: rm -f ${locks.join(" ")}; then workflow_integrate`,
		);
		assert.equal(sh(repo, "rev-parse", "main").trim(), before);
		assert.equal(sh(repo, "status", "--porcelain", "--untracked-files=all"), "", "nothing staged any more");
		assert.ok(locks.every((lock) => existsSync(lock)), "lock files are named, not removed");
		assert.match(second.stderr(), /workflows: wf-[0-9a-f]{12}: .*main\.lock exist/);

		// The person runs the command, and integrating again completes.
		const refused = await client.ok({ type: "workflow_integrate", workflowId: id });
		assert.equal(refused.workflow.status, "conflicted", "still refused while the locks are there");
		assert.match(refused.workflow.reason, /HEAD\.lock, \S+main\.lock exist: .* rm -f /);
		const command = refused.workflow.reason.match(/(rm -f [^;]+);/)![1];
		assert.equal(command, `rm -f ${locks.join(" ")}`);
		execFileSync("sh", ["-c", command]);
		hook.release();
		const integrated = await client.ok({ type: "workflow_integrate", workflowId: id });
		assert.equal(integrated.workflow.status, "completed", integrated.workflow.reason);
		assert.equal(readFileSync(join(repo, "w.txt"), "utf8"), "the workflow's\n");
		assert.equal(sh(repo, "status", "--porcelain"), "");
		client.close();
	} finally {
		await second.stop();
	}
});

test("SIGTERM twice while git fast-forwards the base (git stopped with skiff): the next start puts the base back, paused", async () => {
	const repo = baseRepository();
	const before = sh(repo, "rev-parse", "main").trim();
	const hook = holdMoves(repo);
	const agentDir = tempDir();
	const first = await skiffIn(agentDir, repo);
	let id: string;
	try {
		const held = await integrationHeld(first, repo, hook);
		id = held.id;
		const hookPid = hook.pid();
		const exited = first.signalGroup("SIGTERM");
		await until(() => first.stderr().includes("SIGTERM: stopping"), "skiff to start stopping");
		first.signalGroup("SIGTERM");
		assert.equal(await exited, 1, "the second signal exits without waiting");
		await until(() => !alive(hookPid), "git, stopped with skiff, and its hook to end");
		held.client.close();
	} finally {
		await first.stop("SIGKILL");
	}
	assert.equal(sh(repo, "status", "--porcelain"), "A  w.txt\n", "git was stopped after it wrote the files");

	const second = await skiffIn(agentDir, repo);
	try {
		const client = await TestClient.connect(second.wsUrl);
		await until(() => recordOf(agentDir, id).status !== "integrating", "the interrupted integration to be settled");
		const { workflow } = await client.ok({ type: "workflow_get", workflowId: id });
		assert.equal(workflow.status, "paused");
		assert.equal(
			workflow.reason,
			"The service stopped while it moved main to the integrated commit. main was not moved and the base checkout is as it was (skiff put back w.txt): nothing was merged. workflow_integrate (or workflow_resume) tries again, workflow_cancel gives up",
		);
		assert.equal(sh(repo, "rev-parse", "main").trim(), before);
		assert.equal(sh(repo, "status", "--porcelain", "--untracked-files=all"), "");
		hook.release();
		const integrated = await client.ok({ type: "workflow_integrate", workflowId: id });
		assert.equal(integrated.workflow.status, "completed", integrated.workflow.reason);
		assert.equal(sh(repo, "status", "--porcelain"), "");
		client.close();
	} finally {
		await second.stop();
	}
});

test("SIGTERM while a task runs: the workflow is found paused (interrupted), not failed, and resumes", async () => {
	const repo = baseRepository();
	const agentDir = tempDir();
	const first = await skiffIn(agentDir, repo);
	let release!: () => void;
	heldWorkers = new Promise((resolve) => (release = resolve));
	let id: string;
	try {
		const client = await TestClient.connect(first.wsUrl);
		const sessionId = await sessionIn(client, repo);
		const list = [{ phase: "Work", items: [writes("w.txt", "resumed\n")] }];
		id = (await client.ok({ type: "workflow_create", sessionId, name: "stopped", objective: objective(list) })).workflow.id;
		await client.waitForEvent((e) => e.type === "workflow_updated" && e.workflow.id === id && e.workflow.workers[0]?.sessionId !== undefined, 30_000);
		client.close();
		assert.equal(await first.signalGroup("SIGTERM"), 0);
	} finally {
		heldWorkers = undefined;
		release();
		await first.stop("SIGKILL");
	}
	const stored = recordOf(agentDir, id);
	assert.notEqual(stored.status, "failed", `a graceful stop does not fail the workflow (${stored.reason})`);

	const second = await skiffIn(agentDir, repo);
	try {
		const client = await TestClient.connect(second.wsUrl);
		const { workflow } = await client.ok({ type: "workflow_get", workflowId: id });
		assert.equal(workflow.status, "paused");
		assert.match(workflow.reason, /service stopped while it was running/);
		const from = client.events.length;
		await client.ok({ type: "workflow_resume", workflowId: id });
		await workflowEvent(id, "completed", from, client);
		assert.equal(readFileSync(join(repo, "w.txt"), "utf8"), "resumed\n");
		client.close();
	} finally {
		await second.stop();
	}
});
