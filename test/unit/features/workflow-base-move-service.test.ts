/**
 * An integration is atomic from the person's point of view, in real repositories with real hooks: a move of
 * the base that git does not finish (a hook refuses it, the service stopped under it) is settled, never left
 * half-merged: done, or put back so that integrating again works; the service's stop waits for a move in
 * progress and starts no other.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import type { WorkflowRecord } from "../../../src/features/workflows/schemas.js";
import { alive, baseRepository, holdMoves, refuseMainMoves, removeTempRepos, sh } from "../../support/git-repo.js";
import { until } from "../../support/until.js";
import { serviceOver, workflowOn } from "../../support/workflow-harness.js";

after(removeTempRepos);

test("a hook that refuses the move: the base is put back, the reason says so, and integrating again completes", async () => {
	const repo = baseRepository();
	const record = await workflowOn(repo, "paused", "w.txt", true);
	const from = sh(repo, "rev-parse", "main").trim();
	refuseMainMoves(repo);
	const { workflows } = serviceOver([record]);

	const refused = await workflows.integrate(record.id);
	assert.equal(refused.status, "conflicted");
	assert.match(
		refused.reason!,
		/^Moving main to the integrated commit failed: git merge --ff-only -q [0-9a-f]{40} failed \(exit 128\) in \S+: fatal: ref updates aborted by hook\. main was not moved and the base checkout is as it was \(skiff put back w\.txt\): nothing was merged\. workflow_integrate tries again$/,
	);
	assert.equal(sh(repo, "rev-parse", "main").trim(), from);
	assert.equal(sh(repo, "status", "--porcelain", "--untracked-files=all"), "", "not half-merged: nothing staged");

	sh(repo, "config", "--unset", "core.hooksPath");
	const again = await workflows.integrate(record.id);
	assert.equal(again.status, "completed", again.reason);
	assert.equal(readFileSync(join(repo, "w.txt"), "utf8"), "w.txt\n");
	assert.equal(sh(repo, "status", "--porcelain"), "");
});

/** A record as the service left it when it stopped in the middle of moving main to the workflow's branch. */
async function stoppedWhileMoving(): Promise<{ repo: string; record: WorkflowRecord; to: string }> {
	const repo = baseRepository();
	const record = await workflowOn(repo, "integrating", "w.txt", true);
	const to = sh(record.git!.worktree, "rev-parse", "HEAD").trim();
	record.baseMove = { ref: "refs/heads/main", from: sh(repo, "rev-parse", "main").trim(), to, method: "fast-forward", startedAt: new Date().toISOString() };
	return { repo, record, to };
}

test("on start, a move the service stopped under is put back (the workflow paused) or found done (completed)", async () => {
	// git stopped while the hook held the move: w.txt written and staged, main not moved.
	const { repo, record, to } = await stoppedWhileMoving();
	const hook = holdMoves(repo);
	const git = spawn("git", ["merge", "--ff-only", "-q", to], { cwd: repo, detached: true, stdio: "ignore" });
	const exited = new Promise((resolve) => git.on("exit", resolve));
	await until(() => existsSync(hook.pidFile) && readFileSync(hook.pidFile, "utf8").trim() !== "", "the hook to hold the move");
	const held = hook.pid();
	process.kill(-git.pid!, "SIGTERM");
	await exited;
	await until(() => !alive(held), "the hook to end");
	assert.equal(sh(repo, "status", "--porcelain"), "A  w.txt\n", "half-merged, as the issue found it");

	const { workflows } = serviceOver([record]);
	await until(() => workflows.get(record.id).status !== "integrating", "the move to be settled");
	const paused = workflows.get(record.id);
	assert.equal(paused.status, "paused");
	assert.equal(
		paused.reason,
		"The service stopped while it moved main to the integrated commit. main was not moved and the base checkout is as it was (skiff put back w.txt): nothing was merged. workflow_integrate (or workflow_resume) tries again, workflow_cancel gives up",
	);
	assert.equal(sh(repo, "status", "--porcelain", "--untracked-files=all"), "");
	hook.release();
	const again = await workflows.integrate(record.id);
	assert.equal(again.status, "completed", again.reason);
	assert.equal(sh(repo, "rev-parse", "main").trim(), to);

	// The move had happened before the service stopped: the workflow is complete.
	const done = await stoppedWhileMoving();
	sh(done.repo, "merge", "--ff-only", "-q", done.to);
	const second = serviceOver([done.record]).workflows;
	await until(() => second.get(done.record.id).status !== "integrating", "the move to be settled");
	const completed = second.get(done.record.id);
	assert.equal(completed.status, "completed", completed.reason);
	assert.deepEqual({ method: completed.integration!.method, commit: completed.integration!.commit, files: completed.integration!.filesChanged }, { method: "fast-forward", commit: done.to, files: 1 });
	assert.equal("baseMove" in completed, false, "the journal is not shown to clients");
});

test("the service's stop waits for a move in progress to finish, and starts no other integration", async () => {
	const repo = baseRepository();
	const moving = await workflowOn(repo, "paused", "w.txt", true);
	const waiting = await workflowOn(repo, "paused", "v.txt", true);
	const hook = holdMoves(repo);
	const { workflows } = serviceOver([moving, waiting]);

	const integrating = workflows.integrate(moving.id);
	await until(() => existsSync(hook.pidFile), "the hook to hold the move");
	const second = workflows.integrate(waiting.id); // queued behind the first on the same repository
	let stopped = false;
	const stop = workflows.stop().then(() => (stopped = true));
	await new Promise((resolve) => setImmediate(resolve));
	assert.equal(stopped, false, "the stop waits while git moves the base");
	hook.release();
	await stop;
	assert.equal((await integrating).status, "completed");
	assert.equal(sh(repo, "status", "--porcelain"), "");
	const notStarted = await second;
	assert.equal(notStarted.status, "paused");
	assert.equal(notStarted.reason, "The service stopped before it integrated: workflow_integrate (or workflow_resume) goes on, workflow_cancel gives up");
	assert.ok(!existsSync(join(repo, "v.txt")));
});
