/**
 * The git a workflow needs, through the `git` program: the base checkout's state, an isolated worktree on
 * its own branch and a checkout per task, commits of the jobs' work, and integration that never leaves the
 * base half-merged (the base is merged into the workflow's branch inside the worktree, where a conflict is
 * aborted, and the base only ever fast-forwards to the result; a fast-forward git does not finish is settled
 * by base-move.ts).
 *
 * git runs as a child process the event loop waits for without blocking (a hook, fsmonitor or credential
 * helper that hangs must not freeze every client), each command bounded by GIT_TIMEOUT_MS: past it, git and
 * whatever it started (its own process group) are stopped and the command fails saying so.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { CodedError } from "../../shared/errors.js";
import { type FileChange, MAX_SUMMARY_FILES } from "./schemas.js";

/** How long one git command may run before it is stopped (SKIFF_GIT_TIMEOUT_MS overrides it, e.g. for tests). */
export const GIT_TIMEOUT_MS = 30_000;
/** After the timeout, how long git has to exit on SIGTERM (removing its lock files) before SIGKILL. */
const GIT_KILL_GRACE_MS = 2_000;
/** Git's output is small here; a larger one is a sign of something else. */
const MAX_GIT_OUTPUT_BYTES = 16 * 1024 * 1024;
/** Of git's error output, the lines (and at most the characters) an error message quotes from its end. */
const STDERR_TAIL_LINES = 4;
const STDERR_TAIL_CHARS = 600;
/** How much of the command line an error message shows. */
const COMMAND_CHARS = 200;
/** Who commits the jobs' work when the repository names nobody. */
const FALLBACK_IDENTITY = ["-c", "user.name=Skiff", "-c", "user.email=skiff@localhost"];

export interface GitOptions {
	/** Milliseconds the command may run (default: SKIFF_GIT_TIMEOUT_MS, else GIT_TIMEOUT_MS). */
	timeoutMs?: number;
	/** What git reads on its standard input (for `--stdin` commands); without it, standard input is closed. */
	input?: string;
}

/** git failed: it exited non-zero (`exitCode`), was stopped after the timeout (`timedOut`), or could not run. */
export class GitError extends CodedError {
	constructor(
		message: string,
		readonly stderr: string,
		readonly details: { exitCode?: number; timedOut?: boolean } = {},
	) {
		super("failed", message);
		this.name = "GitError";
	}

	get timedOut(): boolean {
		return this.details.timedOut === true;
	}
}

/** The process groups of the git commands running now: stopped with the service, so no hung hook outlives it. */
const runningGroups = new Set<number>();
let stopsWithService = false;

function stopRunningGroupsOnExit(): void {
	if (stopsWithService) return;
	stopsWithService = true;
	process.once("exit", () => {
		for (const pid of runningGroups) {
			try {
				process.kill(-pid, "SIGTERM");
			} catch {
				// gone already
			}
		}
	});
}

/** The timeout in force: the option, else a valid SKIFF_GIT_TIMEOUT_MS, else the default. */
export function gitTimeoutMs(options: GitOptions = {}): number {
	if (options.timeoutMs !== undefined) return options.timeoutMs;
	const fromEnv = Number(process.env.SKIFF_GIT_TIMEOUT_MS);
	return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : GIT_TIMEOUT_MS;
}

/**
 * Runs git in `dir` and resolves with its output. Rejects with a GitError naming the command and the
 * directory: with the exit code and the end of git's own message when it fails, or after the timeout, once
 * git and its children (hooks, helpers) are stopped.
 */
export function git(dir: string, args: string[], options: GitOptions = {}): Promise<string> {
	const timeoutMs = gitTimeoutMs(options);
	const command = describeCommand(args);
	return new Promise((resolve, reject) => {
		// Its own process group (POSIX), so that a timeout stops the hooks and helpers it started too.
		const group = process.platform !== "win32";
		let child: ReturnType<typeof spawn>;
		try {
			child = spawn("git", args, {
				cwd: dir,
				stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
				detached: group,
				// Never prompt, never open an editor, and read no message templates that could wait for a person.
				env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_EDITOR: "true", GIT_MERGE_AUTOEDIT: "no", LC_ALL: "C" },
			});
		} catch (error) {
			reject(new GitError(`${command} could not run in ${dir}: ${(error as Error).message}`, ""));
			return;
		}
		const pid = child.pid;
		if (group && pid !== undefined) {
			runningGroups.add(pid);
			stopRunningGroupsOnExit();
		}
		const stdout: Buffer[] = [];
		let stdoutBytes = 0;
		let stderr = "";
		let settled = false;
		let stopping: "timeout" | "output" | undefined;
		let graceTimer: NodeJS.Timeout | undefined;

		const signal = (name: NodeJS.Signals) => {
			try {
				if (group && pid !== undefined) process.kill(-pid, name);
				else child.kill(name);
			} catch {
				// gone already
			}
		};
		const settle = (error: GitError | undefined, output?: string) => {
			if (settled) return;
			settled = true;
			if (pid !== undefined) runningGroups.delete(pid);
			clearTimeout(timer);
			clearTimeout(graceTimer);
			if (error) {
				child.stdout?.destroy();
				child.stderr?.destroy();
				reject(error);
			} else resolve(output!);
		};
		const stoppedError = () =>
			stopping === "output"
				? new GitError(`${command} wrote more than ${MAX_GIT_OUTPUT_BYTES / (1024 * 1024)} MiB in ${dir}; it was stopped`, stderr)
				: new GitError(`${command} timed out after ${formatSeconds(timeoutMs)} in ${dir}${tailOf(stderr, ": ")}`, stderr, { timedOut: true });
		/** SIGTERM first (git removes its lock files on it), SIGKILL to whatever is left after the grace. */
		const stop = (why: "timeout" | "output") => {
			if (stopping) return;
			stopping = why;
			signal("SIGTERM");
			graceTimer = setTimeout(() => {
				signal("SIGKILL");
				settle(stoppedError());
			}, GIT_KILL_GRACE_MS);
		};
		const timer = setTimeout(() => stop("timeout"), timeoutMs);
		if (options.input !== undefined) {
			// git may exit before reading it all (a fatal error): the broken pipe is its answer, not ours.
			child.stdin!.on("error", () => undefined);
			child.stdin!.end(options.input);
		}

		child.stdout!.on("data", (chunk: Buffer) => {
			stdoutBytes += chunk.length;
			if (stdoutBytes > MAX_GIT_OUTPUT_BYTES) return stop("output");
			stdout.push(chunk);
		});
		child.stderr!.setEncoding("utf8");
		child.stderr!.on("data", (chunk: string) => {
			stderr = (stderr + chunk).slice(-64 * 1024);
		});
		child.on("error", (error) => {
			signal("SIGKILL");
			settle(new GitError(`${command} could not run in ${dir}: ${error.message}`, stderr));
		});
		// Once git exited after being stopped, its children go too (one that ignored SIGTERM could hold the pipes open).
		child.on("exit", () => {
			if (!stopping) return;
			signal("SIGKILL");
			settle(stoppedError());
		});
		child.on("close", (code, signalName) => {
			if (stopping) return settle(stoppedError());
			if (code === 0) return settle(undefined, Buffer.concat(stdout).toString("utf8"));
			const how = code !== null ? `exit ${code}` : `signal ${signalName}`;
			settle(new GitError(`${command} failed (${how}) in ${dir}${tailOf(stderr, ": ")}`, stderr.trim(), code !== null ? { exitCode: code } : {}));
		});
	});
}

/** `git <args>` for a message: without `-c` settings, long or spaced arguments quoted and cut. */
function describeCommand(args: string[]): string {
	const shown: string[] = [];
	for (let i = 0; i < args.length; i++) {
		if (args[i] === "-c" && shown.length === 0) {
			i++;
			continue;
		}
		const arg = args[i]!.length > 60 ? `${args[i]!.slice(0, 59)}…` : args[i]!;
		shown.push(/^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg));
	}
	const line = ["git", ...shown].join(" ");
	return line.length > COMMAND_CHARS ? `${line.slice(0, COMMAND_CHARS - 1)}…` : line;
}

/**
 * The last lines of git's error output on one line, after `prefix`; empty when there are none. git's own
 * `fatal:` line comes first when advice follows it past those lines (a lock file's "Unable to create
 * '<path>.lock'", which names the file, is followed by four lines of advice).
 */
function tailOf(stderr: string, prefix: string): string {
	const all = stderr.split("\n").map((line) => line.trim()).filter(Boolean);
	const lines = all.slice(-STDERR_TAIL_LINES);
	const fatal = all.find((line) => line.startsWith("fatal: "));
	if (fatal && !lines.includes(fatal)) lines.unshift(fatal);
	if (!lines.length) return "";
	const text = lines.join(" ");
	return prefix + (text.length > STDERR_TAIL_CHARS ? `…${text.slice(-(STDERR_TAIL_CHARS - 1))}` : text);
}

function formatSeconds(ms: number): string {
	return `${Number((ms / 1000).toFixed(3))} s`;
}

/** For helpers that answer a question by git's exit status: a git that timed out answered nothing, so that goes on up. */
function rethrowTimeout(error: unknown): void {
	if (error instanceof GitError && error.timedOut) throw error;
}

/** The repository's top level containing `dir`, or undefined when `dir` is not in a git work tree. */
export async function repositoryRoot(dir: string): Promise<string | undefined> {
	try {
		return (await git(dir, ["rev-parse", "--show-toplevel"])).trim() || undefined;
	} catch (error) {
		rethrowTimeout(error);
		return undefined;
	}
}

/** The commit checked out, or undefined in a repository without commits. */
export async function headCommit(dir: string): Promise<string | undefined> {
	try {
		return (await git(dir, ["rev-parse", "--verify", "-q", "HEAD"])).trim() || undefined;
	} catch (error) {
		rethrowTimeout(error);
		return undefined;
	}
}

/** The branch checked out, or undefined when HEAD is detached. */
export async function currentBranch(dir: string): Promise<string | undefined> {
	try {
		return (await git(dir, ["symbolic-ref", "--short", "-q", "HEAD"])).trim() || undefined;
	} catch (error) {
		rethrowTimeout(error);
		return undefined;
	}
}

/** Tracked files with uncommitted changes (staged or not), and a merge or rebase in progress. */
export async function uncommittedFiles(dir: string): Promise<string[]> {
	const out = await git(dir, ["status", "--porcelain=v1", "-z", "--untracked-files=no"]);
	const files: string[] = [];
	const parts = out.split("\0");
	for (let i = 0; i < parts.length; i++) {
		const entry = parts[i]!;
		if (entry.length < 4) continue;
		files.push(entry.slice(3));
		if (entry[0] === "R" || entry[0] === "C") i++; // the rename's source follows
	}
	return files;
}

/** The commit `ref` points at, or undefined when there is no such ref. */
export async function refCommit(dir: string, ref: string): Promise<string | undefined> {
	try {
		return (await git(dir, ["rev-parse", "--verify", "-q", `${ref}^{commit}`])).trim() || undefined;
	} catch (error) {
		rethrowTimeout(error);
		return undefined;
	}
}

/**
 * Where git keeps each of `names` for the checkout at `dir` (`git rev-parse --git-path`), as absolute paths:
 * a linked worktree has its own HEAD, index and operation files, and shares refs with the repository.
 */
export async function gitPaths(dir: string, names: readonly string[]): Promise<string[]> {
	const out = await git(dir, ["rev-parse", ...names.flatMap((name) => ["--git-path", name])]);
	const paths = out.split("\n").slice(0, names.length);
	if (paths.length !== names.length) throw new GitError(`git rev-parse --git-path answered ${paths.length} paths for ${names.length} in ${dir}`, "");
	return paths.map((path) => resolve(dir, path));
}

export async function branchExists(repo: string, branch: string): Promise<boolean> {
	try {
		await git(repo, ["rev-parse", "--verify", "-q", `refs/heads/${branch}`]);
		return true;
	} catch (error) {
		rethrowTimeout(error);
		return false;
	}
}

/** Creates `branch` at `commit` and checks it out at `path` (a new directory). */
export async function addWorktree(repo: string, path: string, branch: string, commit: string): Promise<void> {
	await git(repo, ["worktree", "add", "-q", "-b", branch, path, commit]);
}

/** Checks `commit` out at `path` (a new directory) on no branch: a task's own checkout, whose commit is then merged. */
export async function addDetachedWorktree(repo: string, path: string, commit: string): Promise<void> {
	await git(repo, ["worktree", "add", "-q", "--detach", path, commit]);
}

/** Removes the worktree at `path` (whatever it holds) and forgets it; a missing one is not an error. */
export async function removeWorktree(repo: string, path: string): Promise<void> {
	await removeWorktrees(repo, [path]);
}

/** Removes each worktree of `paths` (whatever they hold) and forgets them; missing ones are not an error. */
export async function removeWorktrees(repo: string, paths: readonly string[]): Promise<void> {
	for (const path of paths) {
		try {
			await git(repo, ["worktree", "remove", "--force", "--force", path]);
		} catch (error) {
			rethrowTimeout(error);
			// already gone, or not a worktree any more: prune below forgets it
		}
	}
	await git(repo, ["worktree", "prune"]);
}

/** Deletes a branch; `merged`: only when the checked-out branch contains it (git refuses otherwise). Returns whether it went. */
export async function deleteBranch(repo: string, branch: string, options: { onlyIfMerged: boolean }): Promise<boolean> {
	try {
		await git(repo, ["branch", options.onlyIfMerged ? "-d" : "-D", branch]);
		return true;
	} catch (error) {
		rethrowTimeout(error);
		return false;
	}
}

/** Commits everything in the worktree (new files too); returns false when there was nothing to commit. */
export async function commitAll(dir: string, message: string): Promise<boolean> {
	await git(dir, ["add", "-A"]);
	if ((await git(dir, ["status", "--porcelain=v1", "--untracked-files=no"])).trim() === "") return false;
	const identity = (await hasIdentity(dir)) ? [] : FALLBACK_IDENTITY;
	await git(dir, [...identity, "commit", "-q", "--no-verify", "-m", message]);
	return true;
}

async function hasIdentity(dir: string): Promise<boolean> {
	try {
		return (await git(dir, ["config", "user.email"])).trim() !== "" && (await git(dir, ["config", "user.name"])).trim() !== "";
	} catch (error) {
		rethrowTimeout(error);
		return false;
	}
}

export async function isAncestor(dir: string, ancestor: string, descendant: string): Promise<boolean> {
	try {
		await git(dir, ["merge-base", "--is-ancestor", ancestor, descendant]);
		return true;
	} catch (error) {
		rethrowTimeout(error);
		return false;
	}
}

/**
 * Merges `commit` (the base's head, or a task's commit) into the branch checked out in `worktree`; with
 * `fastForward`, a branch that has not moved since `commit` started from it just moves to it (the task's
 * commit itself, no merge commit). On a conflict the merge is aborted (the worktree is as it was) and the
 * conflicting files are returned; otherwise an empty list.
 */
export async function mergeIntoWorktree(worktree: string, commit: string, message: string, options: { fastForward?: boolean } = {}): Promise<string[]> {
	if (await isAncestor(worktree, commit, "HEAD")) return [];
	const identity = (await hasIdentity(worktree)) ? [] : FALLBACK_IDENTITY;
	try {
		await git(worktree, [...identity, "merge", options.fastForward ? "--ff" : "--no-ff", "--no-verify", "-m", message, commit]);
		return [];
	} catch (error) {
		// Stopped after the timeout with `commit` merged: only the post-merge hook was stopped, and the merge is done.
		if (error instanceof GitError && error.timedOut && (await isAncestor(worktree, commit, "HEAD"))) return [];
		const conflicts = (await git(worktree, ["diff", "--name-only", "-z", "--diff-filter=U"])).split("\0").filter(Boolean);
		try {
			await git(worktree, ["merge", "--abort"]);
		} catch {
			await git(worktree, ["reset", "-q", "--hard", "HEAD"]);
		}
		if (conflicts.length === 0) throw error;
		return conflicts;
	}
}

/**
 * Moves the base checkout forward to `commit`; git refuses (and changes nothing) unless that is a fast-forward.
 * A post-merge hook runs once the base has moved: one stopped after the timeout does not undo the move, which
 * is what counts here.
 */
export async function fastForward(base: string, commit: string): Promise<void> {
	try {
		await git(base, ["merge", "--ff-only", "-q", commit]);
	} catch (error) {
		if (error instanceof GitError && error.timedOut && (await headCommit(base).catch(() => undefined)) === commit) return;
		throw error;
	}
}

/** What changed between two commits: files with their added and removed lines (binary files count 0). */
export async function diffSummary(dir: string, from: string, to: string): Promise<{ files: FileChange[]; filesChanged: number; insertions: number; deletions: number }> {
	const files: FileChange[] = [];
	let insertions = 0;
	let deletions = 0;
	let filesChanged = 0;
	for (const line of (await git(dir, ["diff", "--numstat", "--no-renames", from, to])).split("\n")) {
		const [added, removed, ...path] = line.split("\t");
		if (!path.length) continue;
		const change = { path: path.join("\t"), insertions: Number(added) || 0, deletions: Number(removed) || 0 };
		filesChanged++;
		insertions += change.insertions;
		deletions += change.deletions;
		if (files.length < MAX_SUMMARY_FILES) files.push(change);
	}
	return { files, filesChanged, insertions, deletions };
}

/** A clear error for a directory that cannot host a worktree workflow. */
export function notARepository(dir: string): CodedError {
	return new CodedError(
		"invalid_command",
		`${dir} is not in a git repository: a workflow works in a git worktree by default. Use isolation "none" to let its jobs work in the directory itself`,
	);
}
