/**
 * Whether the base checkout may take a workflow: a workflow starts from, and integrates into, a branch the
 * person has checked out and is not in the middle of changing. A fast-forward during an interactive rebase
 * stopped at `edit` moves the rebase's detached HEAD and splices the workflow's commits into the person's
 * rebase; during a merge, a cherry-pick, a revert or a bisect it mixes the workflow's work into theirs. So
 * git's own state files are checked (where `git rev-parse --git-path` says they are, which a linked worktree
 * keeps apart), then the branch, then the lock files a git command that runs, or was killed, leaves.
 */
import { stat } from "node:fs/promises";
import { CodedError } from "../../shared/errors.js";
import { currentBranch, gitPaths } from "./git.js";

/** An operation git is in the middle of, by the file (or folder) it keeps while it is. */
interface Operation {
	file: string;
	what: string;
	/** How the person ends it, either way. */
	end: string;
}

/** In the order they are checked: a rebase stopped on a conflicted pick also has CHERRY_PICK_HEAD, and is a rebase. */
const OPERATIONS: readonly Operation[] = [
	{ file: "rebase-merge", what: "a rebase", end: "git rebase --continue, or git rebase --abort" },
	{ file: "rebase-apply", what: "a rebase (or git am)", end: "git rebase --continue or git am --continue, or the same with --abort" },
	{ file: "MERGE_HEAD", what: "a merge", end: "commit it, or git merge --abort" },
	{ file: "CHERRY_PICK_HEAD", what: "a cherry-pick", end: "git cherry-pick --continue, or git cherry-pick --abort" },
	{ file: "REVERT_HEAD", what: "a revert", end: "git revert --continue, or git revert --abort" },
	{ file: "sequencer", what: "a cherry-pick or revert of several commits", end: "git cherry-pick --continue (or git revert --continue), or the same with --abort" },
	{ file: "BISECT_LOG", what: "a bisect", end: "git bisect reset" },
];

/**
 * The lock files of what a fast-forward of the base changes: its index, HEAD, ORIG_HEAD (written first) and the
 * branch (`ref`). A git killed while it held one leaves it, and every later command that needs it fails.
 */
export function baseLockNames(ref: string): string[] {
	return ["index.lock", "HEAD.lock", "ORIG_HEAD.lock", `${ref}.lock`];
}

/** Which of `paths` exist now. */
export async function existing(paths: readonly string[]): Promise<string[]> {
	const found = await Promise.all(paths.map((path) => stat(path).then(() => true, () => false)));
	return paths.filter((_, i) => found[i]);
}

/** The command that removes lock files a stopped git left, quoted for a POSIX shell. */
export function removeLocksCommand(locks: readonly string[]): string {
	return `rm -f ${locks.map(shellQuote).join(" ")}`;
}

export function shellQuote(text: string): string {
	return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** What to tell a person about lock files found in the base `dir`. */
export function locksMessage(dir: string, locks: readonly string[]): string {
	const which = locks.length === 1 ? `${locks[0]} exists` : `${locks.join(", ")} exist`;
	return `${which}: a git command is running in ${dir}, or one was stopped before it could remove ${locks.length === 1 ? "it" : "them"}. If none runs there: ${removeLocksCommand(locks)}`;
}

/**
 * Checks that the base checkout `dir` is on a branch, with no git operation in progress and no lock file in
 * the way; resolves with the branch's name. Throws `conflict` saying which it is and how the person ends it;
 * `then` ends the message (what to do once it is settled).
 */
export async function checkBase(dir: string, then: string): Promise<string> {
	const names = OPERATIONS.map((operation) => operation.file);
	const paths = await gitPaths(dir, names);
	const found = await existing(paths);
	const operation = OPERATIONS.find((_, i) => found.includes(paths[i]!));
	if (operation) {
		throw new CodedError("conflict", `The base checkout ${dir} is in the middle of ${operation.what}: finish it (${operation.end}), ${then}`);
	}
	const branch = await currentBranch(dir);
	if (!branch) {
		throw new CodedError("conflict", `The base checkout ${dir} is on a detached HEAD: a workflow integrates into a branch, so check one out (git switch <branch>), ${then}`);
	}
	const locks = await existing(await gitPaths(dir, baseLockNames(`refs/heads/${branch}`)));
	if (locks.length) throw new CodedError("conflict", `${locksMessage(dir, locks)}; ${then}`);
	return branch;
}
