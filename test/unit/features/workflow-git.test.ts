/** The workflows' git, in temporary repositories: worktrees, commits, integration and conflicts that leave the base clean. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import {
	addWorktree,
	commitAll,
	currentBranch,
	diffSummary,
	fastForward,
	headCommit,
	mergeIntoWorktree,
	removeWorktree,
	repositoryRoot,
	uncommittedFiles,
} from "../../../src/features/workflows/git.js";

const made: string[] = [];
after(() => {
	for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "skiff-wf-git-"));
	made.push(dir);
	return dir;
}

const sh = (dir: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", ...args], { cwd: dir, encoding: "utf8" });

function repository(): string {
	const dir = tempDir();
	sh(dir, "init", "-q", "-b", "main");
	writeFileSync(join(dir, "a.txt"), "one\ntwo\nthree\n");
	sh(dir, "add", "-A");
	sh(dir, "commit", "-q", "-m", "first");
	return dir;
}

test("a plain directory is no repository; a repository's root, head and branch are found", async () => {
	assert.equal(await repositoryRoot(tempDir()), undefined);
	const repo = repository();
	assert.ok(await repositoryRoot(repo));
	assert.match((await headCommit(repo))!, /^[0-9a-f]{40}$/);
	assert.equal(await currentBranch(repo), "main");
	assert.deepEqual(await uncommittedFiles(repo), []);
	writeFileSync(join(repo, "a.txt"), "changed\n");
	writeFileSync(join(repo, "untracked.txt"), "x\n");
	assert.deepEqual(await uncommittedFiles(repo), ["a.txt"], "only tracked changes make a checkout dirty");
});

test("work in a worktree is committed and fast-forwarded into the base, with its summary", async () => {
	const repo = repository();
	const base = (await headCommit(repo))!;
	const worktree = join(tempDir(), "wt");
	await addWorktree(repo, worktree, "skiff/workflow/x", base);
	writeFileSync(join(worktree, "b.txt"), "new\n");
	writeFileSync(join(worktree, "a.txt"), "one\nTWO\nthree\n");
	assert.equal(await commitAll(worktree, "work"), true);
	assert.equal(await commitAll(worktree, "nothing"), false);
	assert.deepEqual(await mergeIntoWorktree(worktree, base, "merge"), []);
	const head = (await headCommit(worktree))!;
	const summary = await diffSummary(repo, base, head);
	assert.deepEqual(summary, { filesChanged: 2, insertions: 2, deletions: 1, files: [{ path: "a.txt", insertions: 1, deletions: 1 }, { path: "b.txt", insertions: 1, deletions: 0 }] });
	await fastForward(repo, head);
	assert.equal(await headCommit(repo), head);
	assert.equal(readFileSync(join(repo, "b.txt"), "utf8"), "new\n");
	await removeWorktree(repo, worktree);
	assert.ok(!sh(repo, "worktree", "list").includes(worktree));
});

test("a conflict is reported with its files and aborted: the worktree and the base stay clean", async () => {
	const repo = repository();
	const base = (await headCommit(repo))!;
	const worktree = join(tempDir(), "wt");
	await addWorktree(repo, worktree, "skiff/workflow/y", base);
	writeFileSync(join(worktree, "a.txt"), "one\nworkflow\nthree\n");
	await commitAll(worktree, "workflow change");
	const branchHead = await headCommit(worktree);
	writeFileSync(join(repo, "a.txt"), "one\nbase\nthree\n");
	sh(repo, "commit", "-q", "-am", "base change");
	assert.deepEqual(await mergeIntoWorktree(worktree, (await headCommit(repo))!, "merge"), ["a.txt"]);
	assert.equal(await headCommit(worktree), branchHead, "the merge was aborted");
	assert.deepEqual(await uncommittedFiles(worktree), []);
	assert.deepEqual(await uncommittedFiles(repo), []);
	assert.equal(readFileSync(join(repo, "a.txt"), "utf8"), "one\nbase\nthree\n");
});

test("a base that moved elsewhere is merged into the branch, then the base fast-forwards to the merge", async () => {
	const repo = repository();
	const base = (await headCommit(repo))!;
	const worktree = join(tempDir(), "wt");
	await addWorktree(repo, worktree, "skiff/workflow/z", base);
	writeFileSync(join(worktree, "c.txt"), "c\n");
	await commitAll(worktree, "workflow change");
	writeFileSync(join(repo, "d.txt"), "d\n");
	sh(repo, "add", "-A");
	sh(repo, "commit", "-q", "-m", "base change");
	assert.deepEqual(await mergeIntoWorktree(worktree, (await headCommit(repo))!, "merge"), []);
	await fastForward(repo, (await headCommit(worktree))!);
	assert.equal(readFileSync(join(repo, "c.txt"), "utf8"), "c\n");
	assert.equal(readFileSync(join(repo, "d.txt"), "utf8"), "d\n");
	assert.deepEqual(await uncommittedFiles(repo), []);
});
