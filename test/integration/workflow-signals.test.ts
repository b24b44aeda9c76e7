/**
 * Signals to the real service while a workflow integrates, in real repositories whose reference-transaction
 * hook holds the fast-forward of `main` (after git wrote the new files and the index, before main moves):
 *
 * - SIGINT to skiff's process group (Ctrl-C): the shutdown waits for the integration, which completes;
 * - SIGKILL to skiff and to git's group (everything gone at once): the next start puts the base back and
 *   names the lock files git left, with the command that removes them; integrating again then completes;
 * - SIGTERM twice (the second exits without waiting, stopping git): the next start puts the base back and
 *   the workflow is paused, to be integrated again.
 *
 * (A SIGTERM while a task runs: test/integration/workflows.test.ts, the restart test.)
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { alive, baseRepository, type HeldHook, holdMoves, processGroupOf, removeTempRepos, sh } from "../support/git-repo.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { until } from "../support/until.js";
import { objective, sessionIn, writes } from "../support/workflow-client.js";
import { TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;

before(async () => {
	model = await startFakeOpenAi();
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

interface HeldIntegration {
	repo: string;
	/** main's commit before the workflow. */
	before: string;
	hook: HeldHook;
	agentDir: string;
	skiff: SkiffProcess;
	id: string;
	client: TestClient;
}

/**
 * A repository whose hook holds main's fast-forward, a skiff of its own working in it, and a one-task
 * workflow writing w.txt, once the hook holds its fast-forward.
 */
async function heldIntegration(): Promise<HeldIntegration> {
	const repo = baseRepository();
	const before = sh(repo, "rev-parse", "main").trim();
	const hook = holdMoves(repo);
	const agentDir = tempDir();
	const skiff = await skiffIn(agentDir, repo);
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await sessionIn(client, repo);
	const list = [{ phase: "Work", items: [writes("w.txt", "the workflow's\n")] }];
	const { workflow } = await client.ok({ type: "workflow_create", sessionId, name: "held", objective: objective(list) });
	await until(() => existsSync(hook.pidFile) && readFileSync(hook.pidFile, "utf8").trim() !== "", "the hook to hold the fast-forward");
	assert.notEqual(sh(repo, "status", "--porcelain"), "", "git has written the new files and the index, and holds main");
	return { repo, before, hook, agentDir, skiff, id: workflow.id, client };
}

function recordOf(agentDir: string, id: string): { status: string; reason?: string } {
	return JSON.parse(readFileSync(join(agentDir, "workflows", id, "workflow.json"), "utf8")).workflow;
}

/**
 * Starts skiff again on the held integration's folders and runs `check` with the workflow as it is once the
 * interrupted integration is settled; skiff is stopped afterwards.
 */
async function afterRestart(held: HeldIntegration, check: (client: TestClient, workflow: any, skiff: SkiffProcess) => Promise<void>): Promise<void> {
	assert.equal(sh(held.repo, "status", "--porcelain"), "A  w.txt\n", "the stopped git left the base half-merged");
	const skiff = await skiffIn(held.agentDir, held.repo);
	try {
		const client = await TestClient.connect(skiff.wsUrl);
		await until(() => recordOf(held.agentDir, held.id).status !== "integrating", "the interrupted integration to be settled");
		const { workflow } = await client.ok({ type: "workflow_get", workflowId: held.id });
		assert.equal(sh(held.repo, "rev-parse", "main").trim(), held.before, "main was not moved");
		assert.equal(sh(held.repo, "status", "--porcelain", "--untracked-files=all"), "", "nothing staged any more");
		await check(client, workflow, skiff);
		client.close();
	} finally {
		await skiff.stop();
	}
}

test("SIGINT to skiff's process group while git fast-forwards the base: the shutdown waits and the integration completes", async () => {
	const held = await heldIntegration();
	const { repo, hook, skiff, id } = held;
	try {
		const exited = skiff.signalGroup("SIGINT");
		await until(() => skiff.stderr().includes("SIGINT: stopping"), "skiff to start stopping");
		assert.equal(skiff.child.exitCode, null, "skiff waits for the integration");
		assert.ok(alive(hook.pid()), "and git with it");
		hook.release();
		assert.equal(await exited, 0);
		held.client.close();

		const record = recordOf(held.agentDir, id);
		assert.equal(record.status, "completed", record.reason);
		assert.equal(sh(repo, "rev-parse", "main").trim(), sh(repo, "rev-parse", `skiff/workflow/${id}`).trim());
		assert.equal(sh(repo, "status", "--porcelain"), "", "not half-merged");
		assert.equal(readFileSync(join(repo, "w.txt"), "utf8"), "the workflow's\n");
	} finally {
		await skiff.stop("SIGKILL");
	}
});

test("SIGKILL to skiff and to git while git fast-forwards the base: the next start puts the base back and names git's lock files", async () => {
	const held = await heldIntegration();
	const { repo, hook } = held;
	try {
		held.client.close();
		const git = processGroupOf(hook.pid());
		const hookPid = hook.pid();
		assert.equal(await held.skiff.stop("SIGKILL"), null);
		process.kill(-git, "SIGKILL");
		await until(() => !alive(hookPid), "git and its hook to be gone");
	} finally {
		await held.skiff.stop("SIGKILL");
	}
	const locks = [join(repo, ".git", "HEAD.lock"), join(repo, ".git", "refs", "heads", "main.lock")];
	assert.ok(locks.every((lock) => existsSync(lock)), "the killed git left its locks");

	await afterRestart(held, async (client, workflow, skiff) => {
		assert.equal(workflow.status, "conflicted");
		assert.equal(
			workflow.reason,
			`The service stopped while it moved main to the integrated commit. main was not moved and the base checkout is as it was (skiff put back w.txt): nothing was merged. But ${locks.join(", ")} exist: a git command is running in ${repo}, or one was stopped before it could remove them. If none runs there: rm -f ${locks.join(" ")}; then workflow_integrate`,
		);
		assert.ok(locks.every((lock) => existsSync(lock)), "lock files are named, not removed");
		assert.match(skiff.stderr(), /workflows: wf-[0-9a-f]{12}: .*main\.lock exist/);

		// Refused while the locks are there; the person runs the command given, and integrating again completes.
		const refused = await client.ok({ type: "workflow_integrate", workflowId: held.id });
		assert.equal(refused.workflow.status, "conflicted");
		const command = refused.workflow.reason.match(/(rm -f [^;]+);/)![1];
		assert.equal(command, `rm -f ${locks.join(" ")}`);
		execFileSync("sh", ["-c", command]);
		hook.release();
		const integrated = await client.ok({ type: "workflow_integrate", workflowId: held.id });
		assert.equal(integrated.workflow.status, "completed", integrated.workflow.reason);
		assert.equal(readFileSync(join(repo, "w.txt"), "utf8"), "the workflow's\n");
		assert.equal(sh(repo, "status", "--porcelain"), "");
	});
});

test("SIGTERM twice while git fast-forwards the base (git stopped with skiff): the next start puts the base back, paused", async () => {
	const held = await heldIntegration();
	const { repo, hook, skiff } = held;
	try {
		const hookPid = hook.pid();
		const exited = skiff.signalGroup("SIGTERM");
		await until(() => skiff.stderr().includes("SIGTERM: stopping"), "skiff to start stopping");
		void skiff.signalGroup("SIGTERM");
		assert.equal(await exited, 1, "the second signal exits without waiting");
		await until(() => !alive(hookPid), "git, stopped with skiff, and its hook to end");
		held.client.close();
	} finally {
		await skiff.stop("SIGKILL");
	}

	await afterRestart(held, async (client, workflow) => {
		assert.equal(workflow.status, "paused");
		assert.equal(
			workflow.reason,
			"The service stopped while it moved main to the integrated commit. main was not moved and the base checkout is as it was (skiff put back w.txt): nothing was merged. workflow_integrate (or workflow_resume) tries again, workflow_cancel gives up",
		);
		hook.release();
		const integrated = await client.ok({ type: "workflow_integrate", workflowId: held.id });
		assert.equal(integrated.workflow.status, "completed", integrated.workflow.reason);
		assert.equal(sh(repo, "status", "--porcelain"), "");
	});
});
