/**
 * Settling a move of the base's branch that git did not finish, in real repositories with real hooks and
 * real signals: `git merge --ff-only` is held by a reference-transaction hook after it wrote the new files and
 * the index, then its process group is stopped (SIGTERM: git removes its locks; SIGKILL: it cannot), or the
 * hook refuses. The branch at the new commit is a move done; at the old one, the checkout is put back exactly
 * when every changed file is the move's or the branch's own version; anything else, and lock files, are
 * reported with the commands that clear them, and nothing is touched.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { settleBaseMove } from "../../../src/features/workflows/base-move.js";
import type { BaseMove } from "../../../src/features/workflows/schemas.js";
import { alive, baseRepository, changingBranch, holdMoves, processGroupOf, refuseMainMoves, removeTempRepos, sh } from "../../support/git-repo.js";
import { until } from "../../support/until.js";

after(removeTempRepos);

function moveOf(repo: string, to: string): BaseMove {
	return { ref: "refs/heads/main", from: sh(repo, "rev-parse", "main").trim(), to, method: "fast-forward", startedAt: new Date().toISOString() };
}

/**
 * Runs `git merge --ff-only` in its own process group until the hook holds its move of `ref`, then signals
 * the group and waits for git to end.
 */
async function interruptedFastForward(repo: string, to: string, signal: NodeJS.Signals, ref = "refs/heads/main"): Promise<void> {
	const hook = holdMoves(repo, ref);
	const child = spawn("git", ["merge", "--ff-only", "-q", to], { cwd: repo, detached: true, stdio: "ignore" });
	const exited = new Promise((resolve) => child.on("exit", resolve));
	await until(() => existsSync(hook.pidFile) && readFileSync(hook.pidFile, "utf8").trim() !== "", "the hook to hold the move");
	const held = hook.pid();
	assert.equal(processGroupOf(held), child.pid, "the hook runs in git's group");
	process.kill(-child.pid!, signal);
	await exited;
	await until(() => !alive(held), "the hook to end with its group");
	sh(repo, "config", "--unset", "core.hooksPath");
}

function assertAsBefore(repo: string, from: string): void {
	assert.equal(sh(repo, "rev-parse", "main").trim(), from);
	assert.equal(sh(repo, "status", "--porcelain", "--untracked-files=all"), "", "nothing staged, changed or left behind");
	assert.equal(readFileSync(join(repo, "a.txt"), "utf8"), "one\n");
	assert.equal(readFileSync(join(repo, "c.txt"), "utf8"), "to be deleted\n");
	assert.ok(!existsSync(join(repo, "b.txt")) && !existsSync(join(repo, "d", "e.txt")));
}

test("a fast-forward stopped by SIGTERM while the hook held it (files and index moved, main not) is put back", async () => {
	const repo = baseRepository();
	const to = changingBranch(repo);
	const move = moveOf(repo, to);
	await interruptedFastForward(repo, to, "SIGTERM");
	// What the issue found: the base half-merged, the new files staged.
	assert.equal(sh(repo, "status", "--porcelain"), "M  a.txt\nA  b.txt\nD  c.txt\nA  d/e.txt\n");

	const settled = await settleBaseMove(repo, move);
	assert.deepEqual(settled, { state: "undone", restored: ["a.txt", "b.txt", "c.txt", "d/e.txt"], locks: [] });
	assertAsBefore(repo, move.from);
	// Settling again finds nothing to do.
	assert.deepEqual(await settleBaseMove(repo, move), { state: "undone", restored: [], locks: [] });
});

test("one stopped by SIGKILL is put back too, and the lock files it left are reported (never removed)", async () => {
	const repo = baseRepository();
	const to = changingBranch(repo);
	const move = moveOf(repo, to);
	await interruptedFastForward(repo, to, "SIGKILL");
	const locks = [join(repo, ".git", "HEAD.lock"), join(repo, ".git", "refs", "heads", "main.lock")];
	assert.ok(locks.every((lock) => existsSync(lock)), "SIGKILL left git's locks");

	const settled = await settleBaseMove(repo, move);
	assert.deepEqual(settled, { state: "undone", restored: ["a.txt", "b.txt", "c.txt", "d/e.txt"], locks: [locks[1], locks[0]].sort() });
	assert.ok(locks.every((lock) => existsSync(lock)), "a lock's owner cannot be known for certain: it stays");
	assert.equal(sh(repo, "rev-parse", "main").trim(), move.from);
	assert.equal(sh(repo, "status", "--porcelain", "--untracked-files=all"), "");
});

test("one killed while it wrote ORIG_HEAD (first, before any file) changed nothing: its lock is reported", async () => {
	const repo = baseRepository();
	const to = changingBranch(repo);
	const move = moveOf(repo, to);
	await interruptedFastForward(repo, to, "SIGKILL", "ORIG_HEAD");
	const lock = join(repo, ".git", "ORIG_HEAD.lock");
	assert.ok(existsSync(lock));
	assert.deepEqual(await settleBaseMove(repo, move), { state: "undone", restored: [], locks: [lock] });
	assertAsBefore(repo, move.from);
});

test("a hook that refuses the move leaves the files moved and main not: put back", async () => {
	const repo = baseRepository();
	const to = changingBranch(repo);
	const move = moveOf(repo, to);
	refuseMainMoves(repo);
	assert.throws(() => sh(repo, "merge", "--ff-only", "-q", to), /ref updates aborted by hook/);
	assert.notEqual(sh(repo, "status", "--porcelain"), "");
	assert.equal((await settleBaseMove(repo, move)).state, "undone");
	assertAsBefore(repo, move.from);
});

test("a checkout stopped before git wrote the index (some files moved, new ones untracked) is put back", async () => {
	const repo = baseRepository();
	const to = changingBranch(repo);
	const move = moveOf(repo, to);
	writeFileSync(join(repo, "a.txt"), "two\n");
	writeFileSync(join(repo, "b.txt"), "new\n");
	const settled = await settleBaseMove(repo, move);
	assert.deepEqual(settled, { state: "undone", restored: ["a.txt", "b.txt"], locks: [] });
	assertAsBefore(repo, move.from);
});

test("a move that happened (main at the new commit) is reported done", async () => {
	const repo = baseRepository();
	const to = changingBranch(repo);
	const move = moveOf(repo, to);
	sh(repo, "merge", "--ff-only", "-q", to);
	assert.deepEqual(await settleBaseMove(repo, move), { state: "moved", locks: [] });
});

test("changes the move did not make are never touched: reported with the commands, as are a held index and a branch moved elsewhere", async () => {
	const repo = baseRepository();
	const to = changingBranch(repo);
	const move = moveOf(repo, to);
	await interruptedFastForward(repo, to, "SIGTERM");
	writeFileSync(join(repo, "b.txt"), "the person's own words\n");
	writeFileSync(join(repo, "a.txt"), "edited\n");
	const settled = await settleBaseMove(repo, move);
	assert.equal(settled.state, "stuck");
	assert.equal(
		(settled as { problem: string }).problem,
		`The stopped integration left main where it was, and the checkout has changes it did not make (a.txt, b.txt), so skiff does not put the checkout back itself. git -C ${repo} status shows them; git -C ${repo} reset --hard puts every file back as main has it (and discards those changes too)`,
	);
	assert.equal(readFileSync(join(repo, "b.txt"), "utf8"), "the person's own words\n", "untouched");

	// An untracked file of the person's where the move would add one.
	const other = baseRepository();
	const otherTo = changingBranch(other);
	writeFileSync(join(other, "b.txt"), "mine\n");
	const untracked = await settleBaseMove(other, moveOf(other, otherTo));
	assert.equal(untracked.state, "stuck");
	assert.match((untracked as { problem: string }).problem, /changes it did not make \(b\.txt\)/);
	assert.equal(readFileSync(join(other, "b.txt"), "utf8"), "mine\n");

	// index.lock: nothing can be put back until it is gone.
	const locked = baseRepository();
	const lockedTo = changingBranch(locked);
	const lockedMove = moveOf(locked, lockedTo);
	await interruptedFastForward(locked, lockedTo, "SIGTERM");
	writeFileSync(join(locked, ".git", "index.lock"), "");
	const held = await settleBaseMove(locked, lockedMove);
	assert.deepEqual(held, {
		state: "stuck",
		problem: `The files the stopped integration changed cannot be put back while ${join(locked, ".git", "index.lock")} exists; once it is gone, workflow_integrate puts them back`,
		locks: [join(locked, ".git", "index.lock")],
	});

	// main moved by someone else meanwhile.
	const moved = baseRepository();
	const movedTo = changingBranch(moved);
	const movedMove = moveOf(moved, movedTo);
	sh(moved, "commit", "-q", "--allow-empty", "-m", "the person's commit");
	const elsewhere = await settleBaseMove(moved, movedMove);
	assert.equal(elsewhere.state, "stuck");
	assert.match((elsewhere as { problem: string }).problem, /^main is at [0-9a-f]{40} now, neither where it was .* nor at the integrated commit/);
});
