/**
 * The git a workflow needs, through the `git` program: the base checkout's state, an isolated worktree on
 * its own branch, commits of the jobs' work, and integration that never leaves the base half-merged (the base
 * is merged into the workflow's branch inside the worktree, where a conflict is aborted, and the base only
 * ever fast-forwards to the result).
 */
import { execFileSync } from "node:child_process";
import { CodedError } from "../../shared/errors.js";
import { type FileChange, MAX_SUMMARY_FILES } from "./schemas.js";

/** Git's output is small here; a larger one is a sign of something else. */
const MAX_GIT_OUTPUT_BYTES = 16 * 1024 * 1024;
/** Who commits the jobs' work when the repository names nobody. */
const FALLBACK_IDENTITY = ["-c", "user.name=Skiff", "-c", "user.email=skiff@localhost"];

export class GitError extends Error {
	constructor(
		message: string,
		readonly stderr: string,
	) {
		super(message);
		this.name = "GitError";
	}
}

/** Runs git in `dir`; throws GitError with git's own message when it fails. */
export function git(dir: string, args: string[]): string {
	try {
		return execFileSync("git", args, {
			cwd: dir,
			encoding: "utf8",
			maxBuffer: MAX_GIT_OUTPUT_BYTES,
			stdio: ["ignore", "pipe", "pipe"],
			// Never prompt, never open an editor, and read no message templates that could wait for a person.
			env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_EDITOR: "true", GIT_MERGE_AUTOEDIT: "no", LC_ALL: "C" },
		});
	} catch (error) {
		const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
		throw new GitError(`git ${args[0]} failed: ${stderr.split("\n").slice(0, 4).join(" ") || (error as Error).message}`, stderr);
	}
}

/** The repository's top level containing `dir`, or undefined when `dir` is not in a git work tree. */
export function repositoryRoot(dir: string): string | undefined {
	try {
		return git(dir, ["rev-parse", "--show-toplevel"]).trim() || undefined;
	} catch {
		return undefined;
	}
}

/** The commit checked out, or undefined in a repository without commits. */
export function headCommit(dir: string): string | undefined {
	try {
		return git(dir, ["rev-parse", "--verify", "-q", "HEAD"]).trim() || undefined;
	} catch {
		return undefined;
	}
}

/** The branch checked out, or undefined when HEAD is detached. */
export function currentBranch(dir: string): string | undefined {
	try {
		return git(dir, ["symbolic-ref", "--short", "-q", "HEAD"]).trim() || undefined;
	} catch {
		return undefined;
	}
}

/** Tracked files with uncommitted changes (staged or not), and a merge or rebase in progress. */
export function uncommittedFiles(dir: string): string[] {
	const out = git(dir, ["status", "--porcelain=v1", "-z", "--untracked-files=no"]);
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

export function branchExists(repo: string, branch: string): boolean {
	try {
		git(repo, ["rev-parse", "--verify", "-q", `refs/heads/${branch}`]);
		return true;
	} catch {
		return false;
	}
}

/** Creates `branch` at `commit` and checks it out at `path` (a new directory). */
export function addWorktree(repo: string, path: string, branch: string, commit: string): void {
	git(repo, ["worktree", "add", "-q", "-b", branch, path, commit]);
}

/** Removes the worktree at `path` (whatever it holds) and forgets it; a missing one is not an error. */
export function removeWorktree(repo: string, path: string): void {
	try {
		git(repo, ["worktree", "remove", "--force", "--force", path]);
	} catch {
		// already gone, or not a worktree any more: prune below forgets it
	}
	git(repo, ["worktree", "prune"]);
}

/** Deletes a branch; `merged`: only when the checked-out branch contains it (git refuses otherwise). Returns whether it went. */
export function deleteBranch(repo: string, branch: string, options: { onlyIfMerged: boolean }): boolean {
	try {
		git(repo, ["branch", options.onlyIfMerged ? "-d" : "-D", branch]);
		return true;
	} catch {
		return false;
	}
}

/** Commits everything in the worktree (new files too); returns false when there was nothing to commit. */
export function commitAll(dir: string, message: string): boolean {
	git(dir, ["add", "-A"]);
	if (git(dir, ["status", "--porcelain=v1", "--untracked-files=no"]).trim() === "") return false;
	const identity = hasIdentity(dir) ? [] : FALLBACK_IDENTITY;
	git(dir, [...identity, "commit", "-q", "--no-verify", "-m", message]);
	return true;
}

function hasIdentity(dir: string): boolean {
	try {
		return git(dir, ["config", "user.email"]).trim() !== "" && git(dir, ["config", "user.name"]).trim() !== "";
	} catch {
		return false;
	}
}

export function isAncestor(dir: string, ancestor: string, descendant: string): boolean {
	try {
		git(dir, ["merge-base", "--is-ancestor", ancestor, descendant]);
		return true;
	} catch {
		return false;
	}
}

/**
 * Merges `commit` (the base's head) into the branch checked out in `worktree`. On a conflict the merge is
 * aborted (the worktree is as it was) and the conflicting files are returned; otherwise an empty list.
 */
export function mergeIntoWorktree(worktree: string, commit: string, message: string): string[] {
	if (isAncestor(worktree, commit, "HEAD")) return [];
	const identity = hasIdentity(worktree) ? [] : FALLBACK_IDENTITY;
	try {
		git(worktree, [...identity, "merge", "--no-ff", "--no-verify", "-m", message, commit]);
		return [];
	} catch (error) {
		const conflicts = git(worktree, ["diff", "--name-only", "-z", "--diff-filter=U"]).split("\0").filter(Boolean);
		try {
			git(worktree, ["merge", "--abort"]);
		} catch {
			git(worktree, ["reset", "-q", "--hard", "HEAD"]);
		}
		if (conflicts.length === 0) throw error;
		return conflicts;
	}
}

/** Moves the base checkout forward to `commit`; git refuses (and changes nothing) unless that is a fast-forward. */
export function fastForward(base: string, commit: string): void {
	git(base, ["merge", "--ff-only", "-q", commit]);
}

/** What changed between two commits: files with their added and removed lines (binary files count 0). */
export function diffSummary(dir: string, from: string, to: string): { files: FileChange[]; filesChanged: number; insertions: number; deletions: number } {
	const files: FileChange[] = [];
	let insertions = 0;
	let deletions = 0;
	let filesChanged = 0;
	for (const line of git(dir, ["diff", "--numstat", "--no-renames", from, to]).split("\n")) {
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
