/**
 * Tasks that run at once each work in a checkout of their own, in real repositories: every task's commit
 * holds exactly its own change, merged into the workflow's branch when it is done; two tasks that change the
 * same lines conflict, reported as a conflict with the base is, with the task's commit kept.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import type { TodoPlan } from "../../../src/features/todo/index.js";
import { baseRepository, removeTempRepos, sh, useHooks } from "../../support/git-repo.js";
import { until } from "../../support/until.js";
import { FakeJobs, serviceOver, workflowOn } from "../../support/workflow-harness.js";

after(removeTempRepos);

/** Two tasks that wait for nothing: both are ready at once. */
const TWO_TASKS: TodoPlan = {
	phases: [
		{
			name: "Build",
			tasks: [
				{ id: "t1", content: "write one", status: "pending", dependsOn: [] },
				{ id: "t2", content: "write two", status: "pending", dependsOn: [] },
			],
		},
	],
	nextId: 3,
};

async function twoTasksRunning(hooks: Record<string, string> = {}) {
	const repo = baseRepository();
	useHooks(repo, hooks);
	const record = await workflowOn(repo, "paused", "base.txt", true, TWO_TASKS);
	const jobs = new FakeJobs();
	const { workflows } = serviceOver([record], jobs);
	await workflows.resume(record.id);
	await until(() => jobs.spawned.length === 2, "both tasks' jobs to start");
	return { repo, record, jobs, workflows };
}

test("two tasks at once work in checkouts of their own; each commit holds exactly its task's change", async () => {
	const { repo, record, jobs, workflows } = await twoTasksRunning();
	const [one, two] = jobs.spawned;
	assert.ok(one!.cwd && two!.cwd && one!.cwd !== two!.cwd, `each job has its own checkout (${one!.cwd}, ${two!.cwd})`);
	assert.ok(one!.cwd !== record.git!.worktree && two!.cwd !== record.git!.worktree);
	// Both work at once, then both finish.
	writeFileSync(join(one!.cwd!, "one.txt"), "one\n");
	writeFileSync(join(two!.cwd!, "two.txt"), "two\n");
	jobs.finish(one!.job.id, "completed");
	jobs.finish(two!.job.id, "completed");
	await until(() => workflows.get(record.id).status === "completed", () => `the workflow to complete (${workflows.get(record.id).status}: ${workflows.get(record.id).reason})`);

	const commitOf = (subject: string) => sh(repo, "log", "--format=%H", "--grep", `^${subject}$`, "main").trim();
	const filesOf = (commit: string) => sh(repo, "show", "--name-only", "--format=", commit).trim();
	assert.equal(filesOf(commitOf("t1: write one")), "one.txt");
	assert.equal(filesOf(commitOf("t2: write two")), "two.txt");
	assert.equal(readFileSync(join(repo, "one.txt"), "utf8"), "one\n");
	assert.equal(readFileSync(join(repo, "two.txt"), "utf8"), "two\n");
	assert.ok(!existsSync(one!.cwd!) && !existsSync(two!.cwd!), "the tasks' checkouts are gone");
	assert.equal(sh(repo, "worktree", "list").trim().split("\n").length, 2, "the base and the workflow's worktree");
	assert.equal(jobs.spawned.length, 2, "no task ran twice (a task whose job ended is busy until its work is taken)");
});

test("two tasks that change the same lines conflict: reported with the files, the task's commit kept, the base untouched", async () => {
	const { repo, record, jobs, workflows } = await twoTasksRunning();
	const [one, two] = jobs.spawned;
	writeFileSync(join(one!.cwd!, "a.txt"), "from t1\n");
	writeFileSync(join(two!.cwd!, "a.txt"), "from t2\n");
	jobs.finish(one!.job.id, "completed");
	await until(() => workflows.get(record.id).phases[0]!.tasks[0]!.status === "completed", "t1 to be merged");
	jobs.finish(two!.job.id, "completed");
	await until(() => workflows.get(record.id).status === "conflicted", "the tasks' conflict");

	const conflicted = workflows.get(record.id);
	const kept = sh(two!.cwd!, "rev-parse", "HEAD").trim();
	assert.deepEqual(conflicted.integration!.conflicts, ["a.txt"]);
	assert.equal(
		conflicted.reason,
		`Task t2 "write two" changed the same lines as the tasks merged before it: a.txt conflict. Nothing of it was merged into ${record.git!.branch}; its commit ${kept} stays in ${two!.cwd}. Merge it by hand (git -C ${record.git!.worktree} merge ${kept}, resolve, commit), then workflow_integrate; or workflow_cancel`,
	);
	assert.equal(sh(two!.cwd!, "show", "--name-only", "--format=%s", kept).trim(), "t2: write two\n\na.txt");
	assert.equal(readFileSync(join(record.git!.worktree, "a.txt"), "utf8"), "from t1\n", "the branch has t1's work");
	assert.equal(sh(record.git!.worktree, "status", "--porcelain"), "", "the branch's merge was aborted");
	assert.equal(readFileSync(join(repo, "a.txt"), "utf8"), "one\n", "the base is untouched");

	await workflows.remove(record.id);
	assert.equal(sh(repo, "worktree", "list").trim().split("\n").length, 1, "removing the workflow removes the tasks' checkouts too");
});

test("a post-merge hook that hangs (the person's, run in the workflow's worktree too) does not lose a task: its merge is done", async () => {
	const timeout = process.env.SKIFF_GIT_TIMEOUT_MS;
	process.env.SKIFF_GIT_TIMEOUT_MS = "1000";
	try {
		const { repo, record, jobs, workflows } = await twoTasksRunning({ "post-merge": "exec sleep 60" });
		const [one, two] = jobs.spawned;
		writeFileSync(join(one!.cwd!, "one.txt"), "one\n");
		writeFileSync(join(two!.cwd!, "two.txt"), "two\n");
		jobs.finish(one!.job.id, "completed");
		jobs.finish(two!.job.id, "completed");
		await until(() => !["running", "integrating"].includes(workflows.get(record.id).status), "the workflow to end");
		const done = workflows.get(record.id);
		assert.equal(done.status, "completed", done.reason);
		assert.equal(readFileSync(join(repo, "one.txt"), "utf8"), "one\n");
		assert.equal(readFileSync(join(repo, "two.txt"), "utf8"), "two\n");
	} finally {
		if (timeout === undefined) delete process.env.SKIFF_GIT_TIMEOUT_MS;
		else process.env.SKIFF_GIT_TIMEOUT_MS = timeout;
	}
});
