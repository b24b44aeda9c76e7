/**
 * The git a workflow needs, through the `git` program: the base checkout's state, an isolated worktree on
 * its own branch and a checkout per task, commits of the jobs' work, and integration that never leaves the
 * base half-merged (the base is merged into the workflow's branch inside the worktree, where a conflict is
 * aborted, and the base only ever fast-forwards to the result; a fast-forward git does not finish is settled
 * by base-move.ts).
 *
 * The runner itself (an awaited child process with a deadline and its own process group) is shared with the
 * other features that run git: ../git.ts.
 */
import { CodedError } from "../../shared/errors.js";
import { git, GitError, headCommit, rethrowTimeout } from "../git.js";
import { type FileChange, MAX_SUMMARY_FILES } from "./schemas.js";

export { currentBranch, GIT_TIMEOUT_MS, git, GitError, type GitOptions, gitPaths, gitTimeoutMs, headCommit, repositoryRoot } from "../git.js";

/** Who commits the jobs' work when the repository names nobody. */
const FALLBACK_IDENTITY = ["-c", "user.name=Skiff", "-c", "user.email=skiff@localhost"];

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
