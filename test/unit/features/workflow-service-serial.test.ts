/**
 * Commands that arrive while a workflow's git runs (git no longer holds the event loop) are answered as if
 * they had come one after the other: per workflow (a second remove finds nothing, an integrate after a remove
 * finds nothing) and per repository (two workflows integrating into one base at once both complete).
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { baseRepository, removeTempRepos, sh } from "../../support/git-repo.js";
import { outcome, serviceOver as service, workflowOn } from "../../support/workflow-harness.js";

after(removeTempRepos);

const repository = () => baseRepository();

test("two removes of one workflow at once: the first removes it, the second finds nothing", async () => {
	const repo = repository();
	const record = await workflowOn(repo, "cancelled", "b.txt", true);
	const { workflows, removed } = service([record]);
	const [first, second] = await Promise.all([outcome(workflows.remove(record.id)), outcome(workflows.remove(record.id))]);
	assert.deepEqual(first, { workflowId: record.id, branchKept: record.git!.branch }, "its unmerged branch is kept");
	assert.deepEqual(second, { code: "not_found", message: `No workflow "${record.id}": workflow_list lists them` });
	assert.deepEqual(removed, [record.id]);
	assert.ok(!existsSync(record.git!.worktree));
	assert.equal(sh(repo, "branch", "--list", "skiff/*").trim(), record.git!.branch);
});

test("an integrate and a remove of one conflicted workflow at once: each sees the other's result", async () => {
	const repo = repository();
	const record = await workflowOn(repo, "conflicted", "c.txt");
	const { workflows } = service([record]);
	const [integrated, removedAfter] = await Promise.all([outcome(workflows.integrate(record.id)), outcome(workflows.remove(record.id))]);
	assert.equal((integrated as { status: string }).status, "completed");
	assert.deepEqual(removedAfter, { workflowId: record.id }, "removed after it was integrated: its merged branch went too");
	assert.equal(readFileSync(join(repo, "c.txt"), "utf8"), "c.txt\n");
	assert.equal(sh(repo, "branch", "--list", "skiff/*"), "");

	const again = await outcome(workflows.integrate(record.id));
	assert.equal((again as { code: string }).code, "not_found");
});

test("two workflows integrating into one base at once both complete: one fast-forwards, the other merges", async () => {
	const repo = repository();
	const one = await workflowOn(repo, "paused", "one.txt");
	const two = await workflowOn(repo, "paused", "two.txt");
	const { workflows } = service([one, two]);
	const results = (await Promise.all([workflows.integrate(one.id), workflows.integrate(two.id)])).map((w) => [w.status, w.integration?.method, w.reason]);
	assert.deepEqual(results, [
		["completed", "fast-forward", undefined],
		["completed", "merge", undefined],
	]);
	assert.equal(readFileSync(join(repo, "one.txt"), "utf8"), "one.txt\n");
	assert.equal(readFileSync(join(repo, "two.txt"), "utf8"), "two.txt\n");
	assert.equal(sh(repo, "status", "--porcelain"), "");
});
