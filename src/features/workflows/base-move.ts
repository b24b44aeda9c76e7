/**
 * Moving the base checkout's branch to the integrated commit, as one step the person sees done or not done.
 *
 * `git merge --ff-only` first writes the new files and the index, then moves the branch (running the
 * reference-transaction hooks in between). A git stopped in that gap (a signal, the service killed, a hook
 * past the timeout, a hook that refuses) leaves the branch where it was and the new files staged: the base
 * looks half-merged, and every later integration is refused for its "uncommitted changes". SIGKILL also
 * leaves `<branch>.lock` and `HEAD.lock`, which stop every git command that would move the branch.
 *
 * So the workflow records the move (`baseMove`: the branch, where it was, where it goes) before git touches
 * the base, and whenever a move did not end cleanly (at once, or on the next start) it is settled here: the
 * branch at the new commit means the move happened; the branch where it was means it did not, and what the
 * checkout already changed is put back, but only when every changed file is exactly as it was or as the move
 * wrote it (so nothing the person did is lost); otherwise, and for lock files (whose owner cannot be known
 * for certain), the person is told what is left and the exact commands that clear it.
 */
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { baseLockNames, existing, locksMessage, shellQuote } from "./base-state.js";
import { listFiles } from "./file-list.js";
import { currentBranch, git, GitError, gitPaths, refCommit } from "./git.js";
import type { BaseMove } from "./schemas.js";

/** Paths given to one git command (its command line stays short). */
const PATHS_PER_COMMAND = 200;
/** git's name for "no object": the side of a diff where the file does not exist. */
const NO_OBJECT = /^0+$/;

export type SettledMove =
	/** The branch is at the new commit: the move happened. */
	| { state: "moved"; locks: string[] }
	/** The branch is where it was and so is the checkout (`restored`: the files put back). */
	| { state: "undone"; restored: string[]; locks: string[] }
	/** Skiff could not make sure of either: `problem` says what is left and how to clear it. */
	| { state: "stuck"; problem: string; locks: string[] };

/** The lock files that stop the next integration, said with the command that removes them; empty when there are none. */
export function locksNote(dir: string, settled: SettledMove): string {
	return settled.locks.length ? locksMessage(dir, settled.locks) : "";
}

/**
 * Settles a move of the base `dir` that did not end cleanly, as described above. Runs only git commands
 * that change no ref (so no reference-transaction hook runs again); throws a GitError when git fails.
 */
export async function settleBaseMove(dir: string, move: BaseMove): Promise<SettledMove> {
	const lockPaths = await gitPaths(dir, baseLockNames(move.ref));
	const locks = await existing(lockPaths);
	const branch = move.ref.replace(/^refs\/heads\//, "");
	const at = await refCommit(dir, move.ref);
	if (at === move.to) return { state: "moved", locks };
	const stuck = (problem: string): SettledMove => ({ state: "stuck", problem, locks });
	if (at !== move.from) {
		return stuck(
			`${branch} is at ${at ?? "no commit"} now, neither where it was (${move.from}) nor at the integrated commit (${move.to}): it was moved meanwhile, so skiff leaves the checkout as it is (git -C ${shellQuote(dir)} status shows what is there)`,
		);
	}
	const checkedOut = await currentBranch(dir);
	if (checkedOut !== branch) {
		return stuck(
			`The base checkout is on ${checkedOut ?? "a detached HEAD"} now, not ${branch}: skiff leaves it as it is (git -C ${shellQuote(dir)} status shows what the stopped integration left)`,
		);
	}
	if (locks.includes(lockPaths[0]!)) {
		// No index can be written while index.lock is there; once it is gone, the next try puts the files back.
		return stuck(`The files the stopped integration changed cannot be put back while ${lockPaths[0]} exists; once it is gone, workflow_integrate puts them back`);
	}
	const changes = await checkoutChanges(dir, move);
	if (changes.foreign.length) {
		return stuck(
			`The stopped integration left ${branch} where it was, and the checkout has changes it did not make (${listFiles(changes.foreign)}), so skiff does not put the checkout back itself. git -C ${shellQuote(dir)} status shows them; git -C ${shellQuote(dir)} reset --hard puts every file back as ${branch} has it (and discards those changes too)`,
		);
	}
	if (!changes.ours.length && !changes.created.length) return { state: "undone", restored: [], locks };
	// The index and the files as the branch has them; files the move created are not in it, so they go by name.
	await git(dir, ["read-tree", "--reset", "-u", move.from]);
	for (const path of changes.created) await rm(join(dir, path), { force: true });
	const left = await checkoutChanges(dir, move);
	if (left.ours.length || left.created.length || left.foreign.length) {
		const files = [...left.ours, ...left.created, ...left.foreign];
		return stuck(`The files the stopped integration changed could not all be put back (${listFiles(files)}): git -C ${shellQuote(dir)} reset --hard puts every file back as ${branch} has it`);
	}
	return { state: "undone", restored: [...changes.ours, ...changes.created].sort(), locks };
}

/** Each file the move changes, with its blob before and after (undefined: absent on that side). */
type MovedFiles = Map<string, { from?: string; to?: string }>;

/**
 * The checkout's changes from the branch (`from`), sorted: `ours` are tracked files whose index entry and
 * content are the move's new version; `created`, untracked files the move wrote (byte for byte its version)
 * that the branch does not have; `foreign`, anything else changed (not a file the move changes, or neither
 * its old nor its new version).
 */
async function checkoutChanges(dir: string, move: BaseMove): Promise<{ ours: string[]; created: string[]; foreign: string[] }> {
	const moved = await movedFiles(dir, move.from, move.to);
	const ours = new Set<string>();
	const foreign = new Set<string>();
	for (const staged of [true, false]) {
		const cached = staged ? ["--cached"] : [];
		const fromOld = await changedNames(dir, [...cached, move.from]);
		const fromNew = new Set(await changedNames(dir, [...cached, move.to]));
		for (const path of fromOld) (moved.has(path) && !fromNew.has(path) ? ours : foreign).add(path);
	}
	const created: string[] = [];
	const untracked = await untrackedAmong(dir, [...moved.keys()]);
	const hashes = await hashFiles(dir, untracked);
	untracked.forEach((path, i) => {
		const blobs = moved.get(path)!;
		if (hashes[i] === blobs.to && blobs.from === undefined) created.push(path);
		else if (hashes[i] !== blobs.from) foreign.add(path);
	});
	for (const path of foreign) ours.delete(path);
	return { ours: [...ours].sort(), created: created.sort(), foreign: [...foreign].sort() };
}

async function movedFiles(dir: string, from: string, to: string): Promise<MovedFiles> {
	const parts = (await git(dir, ["diff", "--raw", "-z", "--no-renames", "--no-abbrev", from, to])).split("\0");
	const files: MovedFiles = new Map();
	for (let i = 0; i + 1 < parts.length; i += 2) {
		const [, , before, after] = parts[i]!.split(" ");
		files.set(parts[i + 1]!, { ...(before && !NO_OBJECT.test(before) ? { from: before } : {}), ...(after && !NO_OBJECT.test(after) ? { to: after } : {}) });
	}
	return files;
}

/** Paths whose index entry (`--cached`) or file differs from the commit named last in `args`. */
async function changedNames(dir: string, args: string[]): Promise<string[]> {
	return (await git(dir, ["diff", "--name-only", "-z", "--no-renames", ...args])).split("\0").filter(Boolean);
}

/** Which of `paths` exist in the checkout untracked (ignored or not). */
async function untrackedAmong(dir: string, paths: string[]): Promise<string[]> {
	const untracked: string[] = [];
	for (const chunk of chunks(paths)) {
		untracked.push(...(await git(dir, ["--literal-pathspecs", "ls-files", "-o", "-z", "--", ...chunk])).split("\0").filter(Boolean));
	}
	return untracked;
}

/** The blob each file would be stored as (git's own filters applied), in order. */
async function hashFiles(dir: string, paths: string[]): Promise<string[]> {
	const hashes: string[] = [];
	for (const chunk of chunks(paths)) {
		const out = (await git(dir, ["hash-object", "--", ...chunk])).trim().split("\n");
		if (out.length !== chunk.length) throw new GitError(`git hash-object answered ${out.length} hashes for ${chunk.length} files in ${dir}`, "");
		hashes.push(...out);
	}
	return hashes;
}

/** `paths` in pieces for one command line each (never an empty one: no path would mean every path). */
function chunks(paths: string[]): string[][] {
	const pieces: string[][] = [];
	for (let i = 0; i < paths.length; i += PATHS_PER_COMMAND) pieces.push(paths.slice(i, i + PATHS_PER_COMMAND));
	return pieces;
}
