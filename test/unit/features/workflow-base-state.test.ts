/**
 * A workflow neither starts from nor integrates into a base checkout in the middle of something: a rebase
 * (stopped at `edit`, where a fast-forward would splice the workflow's commit into the rebase), a merge, a
 * cherry-pick, a revert, a bisect, `git am`, a detached HEAD, or a lock file in the way; in the repository's
 * own checkout and in a linked worktree (whose state files git keeps apart), in real repositories.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { checkBase } from "../../../src/features/workflows/base-state.js";
import { baseRepository, removeTempRepos, sh, tempRepoDir } from "../../support/git-repo.js";
import { outcome, serviceOver, workflowOn } from "../../support/workflow-harness.js";

after(removeTempRepos);

/** git with a scripted sequence editor (for `rebase -i`), failing quietly when the test expects it to stop. */
function gitStops(dir: string, args: string[], env: Record<string, string> = {}): void {
	try {
		execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", ...args], { cwd: dir, env: { ...process.env, ...env }, stdio: "ignore" });
	} catch {
		// a conflict or an `edit` stop: what the test wants
	}
}

/** A repository with two commits on main and a branch `other` that changes a.txt's line differently. */
function repositoryWithHistory(): string {
	const repo = baseRepository();
	writeFileSync(join(repo, "a.txt"), "main's\n");
	sh(repo, "commit", "-q", "-am", "second");
	sh(repo, "switch", "-q", "-c", "other", "HEAD~1");
	writeFileSync(join(repo, "a.txt"), "other's\n");
	sh(repo, "commit", "-q", "-am", "other");
	sh(repo, "switch", "-q", "main");
	return repo;
}

const THEN = "then workflow_integrate";

/** Each way to leave a checkout in the middle of something, and the start of what checkBase answers. */
const STATES: Array<{ name: string; enter: (dir: string) => void; says: RegExp }> = [
	{
		name: "an interactive rebase stopped at edit",
		enter: (dir) => gitStops(dir, ["rebase", "-i", "HEAD~1"], { GIT_SEQUENCE_EDITOR: "sed -i 1s/^pick/edit/" }),
		says: /is in the middle of a rebase: finish it \(git rebase --continue, or git rebase --abort\), then workflow_integrate$/,
	},
	{ name: "a rebase stopped on a conflict (apply backend)", enter: (dir) => gitStops(dir, ["rebase", "--apply", "other"]), says: /in the middle of a rebase \(or git am\)/ },
	{ name: "a merge with a conflict", enter: (dir) => gitStops(dir, ["merge", "other"]), says: /in the middle of a merge: finish it \(commit it, or git merge --abort\)/ },
	{ name: "a cherry-pick with a conflict", enter: (dir) => gitStops(dir, ["cherry-pick", "other"]), says: /in the middle of a cherry-pick: finish it \(git cherry-pick --continue/ },
	{ name: "a revert with a conflict", enter: (dir) => gitStops(dir, ["revert", "--no-edit", "HEAD~1"]), says: /in the middle of a revert: finish it \(git revert --continue/ },
	{ name: "a bisect", enter: (dir) => gitStops(dir, ["bisect", "start"]), says: /in the middle of a bisect: finish it \(git bisect reset\)/ },
	{
		name: "a detached HEAD",
		enter: (dir) => gitStops(dir, ["switch", "-q", "--detach", "HEAD"]),
		says: /is on a detached HEAD: a workflow integrates into a branch, so check one out \(git switch <branch>\), then workflow_integrate$/,
	},
	{
		name: "an ORIG_HEAD.lock left by a killed merge",
		enter: (dir) => writeFileSync(sh(dir, "rev-parse", "--path-format=absolute", "--git-path", "ORIG_HEAD.lock").trim(), ""),
		says: /ORIG_HEAD\.lock exists: a git command is running in .* If none runs there: rm -f \S+ORIG_HEAD\.lock; then workflow_integrate$/,
	},
	{ name: "an index.lock", enter: (dir) => writeFileSync(sh(dir, "rev-parse", "--path-format=absolute", "--git-path", "index.lock").trim(), ""), says: /index\.lock exists: a git command is running in .*, or one was stopped before it could remove it\. If none runs there: rm -f \S+index\.lock; then workflow_integrate$/ },
];

for (const state of STATES) {
	test(`refused in ${state.name}, in the repository's checkout and in a linked worktree`, async () => {
		const repo = repositoryWithHistory();
		assert.equal(await checkBase(repo, THEN), "main");
		state.enter(repo);
		await assert.rejects(checkBase(repo, THEN), (error: Error & { code?: string }) => {
			assert.equal(error.code, "conflict");
			assert.match(error.message, state.says);
			assert.ok(error.message.startsWith(`The base checkout ${repo} `) || error.message.includes(".lock exists"), error.message);
			return true;
		});

		// A linked worktree on its own branch: its state is its own, and the repository's checkout is not it.
		const other = repositoryWithHistory();
		const linked = join(tempRepoDir(), "linked");
		sh(other, "worktree", "add", "-q", "-b", "work", linked, "main");
		sh(linked, "branch", "-q", "-f", "other", "other");
		state.enter(linked);
		await assert.rejects(checkBase(linked, THEN), state.says);
		assert.equal(await checkBase(other, THEN), "main", "the repository's own checkout is not in the middle of anything");
	});
}

test("a workflow's integration during an interactive rebase stopped at edit is refused; the rebase is left as it was", async () => {
	const repo = repositoryWithHistory();
	const record = await workflowOn(repo, "paused", "w.txt", true);
	// Created on a detached HEAD (as was allowed), so no branch to compare with: only the rebase's state tells.
	delete record.git!.baseBranch;
	gitStops(repo, ["rebase", "-i", "HEAD~1"], { GIT_SEQUENCE_EDITOR: "sed -i 1s/^pick/edit/" });
	const stoppedAt = sh(repo, "rev-parse", "HEAD").trim();
	const { workflows } = serviceOver([record]);

	const integrated = await workflows.integrate(record.id);
	assert.equal(integrated.status, "conflicted");
	assert.match(integrated.reason!, /^The base checkout \S+ is in the middle of a rebase: finish it \(git rebase --continue, or git rebase --abort\), then workflow_integrate$/);
	assert.equal(sh(repo, "rev-parse", "HEAD").trim(), stoppedAt, "the rebase's HEAD did not move");
	assert.ok(!existsSync(join(repo, "w.txt")), "nothing of the workflow is in the rebase");
	assert.ok(existsSync(sh(repo, "rev-parse", "--path-format=absolute", "--git-path", "rebase-merge").trim()), "the rebase is still in progress");

	// Once the rebase is done, integrating again takes the work.
	sh(repo, "rebase", "--continue");
	const again = await workflows.integrate(record.id);
	assert.equal(again.status, "completed", again.reason);
	assert.equal(readFileSync(join(repo, "w.txt"), "utf8"), "w.txt\n");
});

test("a workflow is not created on a detached HEAD or during a merge, and nothing of it is made", async () => {
	const repo = repositoryWithHistory();
	const { workflows } = serviceOver([]);
	gitStops(repo, ["switch", "-q", "--detach", "HEAD"]);
	const detached = await outcome(workflows.create("s", repo, { name: "x", objective: "y" }));
	assert.deepEqual(detached, {
		code: "conflict",
		message: `The base checkout ${repo} is on a detached HEAD: a workflow integrates into a branch, so check one out (git switch <branch>), then create the workflow`,
	});
	sh(repo, "switch", "-q", "main");
	gitStops(repo, ["merge", "other"]);
	const merging = await outcome(workflows.create("s", repo, { name: "x", objective: "y" }));
	assert.equal((merging as { code: string }).code, "conflict");
	assert.match((merging as { message: string }).message, /is in the middle of a merge: finish it \(commit it, or git merge --abort\), then create the workflow$/);
	assert.equal(sh(repo, "branch", "--list", "skiff/*"), "");
	assert.equal(sh(repo, "worktree", "list").trim().split("\n").length, 1);
	assert.deepEqual(workflows.list(), []);
});
