/**
 * The workflows' git runner: git's output on success; on failure an error naming the command, the directory,
 * the exit code and the end of git's message; and a git that hangs stopped after the timeout with whatever it
 * started, failing with an error that says so, while the event loop stays free.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { after, test } from "node:test";
import { addWorktree, commitAll, fastForward, GIT_TIMEOUT_MS, GitError, git, gitTimeoutMs, headCommit } from "../../../src/features/workflows/git.js";

const made: string[] = [];
after(() => {
	for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
	const dir = realpathSync(mkdtempSync(join(tmpdir(), "skiff-git-runner-")));
	made.push(dir);
	return dir;
}

function repository(): string {
	const dir = tempDir();
	execFileSync("git", ["init", "-q", "-b", "main"], { cwd: dir });
	return dir;
}

/** Whether a process ended within `ms` (a zombie its new parent has not reaped yet has ended). */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
	const until = Date.now() + ms;
	while (Date.now() < until) {
		try {
			process.kill(pid, 0);
		} catch {
			return true;
		}
		if (isZombie(pid)) return true;
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
	return false;
}

function isZombie(pid: number): boolean {
	try {
		return /\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
	} catch {
		return false; // no /proc here: only the signal tells
	}
}

test("git's output on success", async () => {
	const repo = repository();
	assert.equal(await git(repo, ["rev-parse", "--show-toplevel"]), `${repo}\n`);
	assert.equal(await git(repo, ["config", "--get", "core.bare"]), "false\n");
});

test("a non-zero exit fails with the command, the directory, the exit code and the end of git's message", async () => {
	const repo = repository();
	const error = await git(repo, ["merge", "--ff-only", "-q", "no-such-ref"]).catch((e: unknown) => e);
	assert.ok(error instanceof GitError);
	assert.equal(error.code, "failed", "a CodedError the wire reports as failed");
	assert.equal(error.timedOut, false);
	assert.equal(error.details.exitCode, 1);
	assert.equal(error.message, `git merge --ff-only -q no-such-ref failed (exit 1) in ${repo}: merge: no-such-ref - not something we can merge`);

	// `-c` settings are left out, and an argument with spaces or new lines is quoted on one line.
	const plain = tempDir();
	const commit = await git(plain, ["-c", "user.name=Skiff", "commit", "-q", "-m", "t1: do it\n\nmore"]).catch((e: unknown) => e);
	assert.ok(commit instanceof GitError);
	assert.match(commit.message, new RegExp(`^git commit -q -m "t1: do it\\\\n\\\\nmore" failed \\(exit 128\\) in ${plain}: fatal: not a git repository`));
	// git's fatal line comes first when advice follows it: here it names the lock file in the way.
	writeFileSync(join(repo, ".git", "index.lock"), "");
	const locked = await git(repo, ["add", "-A"]).catch((e: unknown) => e);
	assert.ok(locked instanceof GitError);
	assert.match(locked.message, new RegExp(`^git add -A failed \\(exit 128\\) in ${repo}: fatal: Unable to create '${repo}/\\.git/index\\.lock': File exists\\. `));
	// The helpers that ask a question take git's "no" as the answer.
	assert.equal(await headCommit(plain), undefined);
});

test("a git that hangs is stopped with what it started after the timeout, and fails saying so; the loop stays free", async () => {
	const repo = repository();
	const pidFile = join(repo, "sleep.pid");
	// A shell alias that starts a child and waits for it, as a hook or credential helper would.
	const args = ["-c", `alias.hang=!sleep 30 & echo $! > ${pidFile}; wait`, "hang"];
	const started = Date.now();
	let ticks = 0;
	const ticker = setInterval(() => ticks++, 10);
	const error = await git(repo, args, { timeoutMs: 300 }).catch((e: unknown) => e);
	clearInterval(ticker);
	const elapsed = Date.now() - started;
	assert.ok(error instanceof GitError);
	assert.equal(error.timedOut, true);
	assert.equal(error.code, "failed");
	assert.equal(error.message, `git hang timed out after 0.3 s in ${repo}`);
	assert.ok(elapsed >= 300 && elapsed < 3_000, `stopped soon after the timeout (${elapsed} ms)`);
	assert.ok(ticks >= 10, `timers ran while git hung (${ticks} ticks of 10 ms)`);
	const sleeper = Number(readFileSync(pidFile, "utf8"));
	assert.ok(await goneWithin(sleeper, 2_000), `git's child ${sleeper} was stopped too`);
});

test("the timeout: 30 s by default, SKIFF_GIT_TIMEOUT_MS when valid, and a question helper passes a timeout on", async () => {
	const saved = { timeout: process.env.SKIFF_GIT_TIMEOUT_MS, path: process.env.PATH };
	try {
		delete process.env.SKIFF_GIT_TIMEOUT_MS;
		assert.equal(gitTimeoutMs(), GIT_TIMEOUT_MS);
		assert.equal(GIT_TIMEOUT_MS, 30_000);
		process.env.SKIFF_GIT_TIMEOUT_MS = "nonsense";
		assert.equal(gitTimeoutMs(), GIT_TIMEOUT_MS);
		process.env.SKIFF_GIT_TIMEOUT_MS = "250";
		assert.equal(gitTimeoutMs(), 250);
		assert.equal(gitTimeoutMs({ timeoutMs: 5 }), 5);

		// A `git` first on PATH that hangs on rev-parse: headCommit says it timed out, not "no commit".
		const bin = join(tempDir(), "bin");
		mkdirSync(bin);
		writeFileSync(join(bin, "git"), '#!/bin/sh\nif [ "$1" = rev-parse ]; then sleep 30; fi\nexit 0\n');
		chmodSync(join(bin, "git"), 0o755);
		process.env.PATH = `${bin}${delimiter}${saved.path}`;
		const repo = tempDir();
		await assert.rejects(headCommit(repo), (e: unknown) => e instanceof GitError && e.timedOut && e.message === `git rev-parse --verify -q HEAD timed out after 0.25 s in ${repo}`);
		assert.ok(!existsSync(join(repo, ".git")));
	} finally {
		for (const [key, value] of [["SKIFF_GIT_TIMEOUT_MS", saved.timeout], ["PATH", saved.path]] as const) {
			if (value === undefined) delete process.env[key];
			else process.env[key] = value;
		}
	}
});

test("a fast-forward whose post-merge hook hangs: the base moved, so it counts as done once the hook is stopped", async () => {
	const saved = process.env.SKIFF_GIT_TIMEOUT_MS;
	try {
		const repo = repository();
		writeFileSync(join(repo, "a.txt"), "a\n");
		execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", "add", "-A"], { cwd: repo });
		execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first"], { cwd: repo });
		const worktree = join(tempDir(), "wt");
		await addWorktree(repo, worktree, "skiff/workflow/ff", (await headCommit(repo))!);
		writeFileSync(join(worktree, "b.txt"), "b\n");
		await commitAll(worktree, "work");
		const hooks = join(tempDir(), "hooks");
		mkdirSync(hooks);
		writeFileSync(join(hooks, "post-merge"), "#!/bin/sh\nexec sleep 30\n");
		chmodSync(join(hooks, "post-merge"), 0o755);
		execFileSync("git", ["config", "core.hooksPath", hooks], { cwd: repo });
		process.env.SKIFF_GIT_TIMEOUT_MS = "300";
		const branchHead = (await headCommit(worktree))!;
		await fastForward(repo, branchHead);
		assert.equal(await headCommit(repo), branchHead);
		assert.equal(readFileSync(join(repo, "b.txt"), "utf8"), "b\n");
		// A fast-forward git refuses still fails.
		await assert.rejects(fastForward(repo, "no-such-ref"), /git merge --ff-only -q no-such-ref failed \(exit 1\)/);
	} finally {
		if (saved === undefined) delete process.env.SKIFF_GIT_TIMEOUT_MS;
		else process.env.SKIFF_GIT_TIMEOUT_MS = saved;
	}
});
