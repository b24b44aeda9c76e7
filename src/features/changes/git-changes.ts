/**
 * The changes of a session's working directory inside a git repository: listed against a base commit (HEAD,
 * or the commit of the session's first prompt), one file's diff, and a revert to the base. Every git command
 * runs through the features' runner (../git.ts: awaited, with a deadline, its output bounded), from the
 * working directory with `--relative`, so paths are relative to it and nothing outside it is listed or touched;
 * pathspecs are literal (a file named `*` is that file).
 */
import { access } from "node:fs/promises";
import { join } from "node:path";
import { currentBranch, git, gitBounded, gitPaths, headCommit } from "../git.js";
import { parseNulPaths, parseRawNumstat } from "./git-output.js";
import { examineFile } from "./file-token.js";
import { inParallel } from "./in-parallel.js";
import { type ChangedFile, MAX_CHANGED_FILES, MAX_DIFF_BYTES, type Since } from "./schemas.js";
import type { Trash } from "./trash.js";

/** What the session found at its first prompt (recorded in the session: see session.ts). */
export interface SessionStart {
	/** The commit checked out then (null: no commit yet). */
	head: string | null;
	/** The untracked files then, with their tokens. */
	untracked: ReadonlyMap<string, string>;
	/** More untracked files than were kept then. */
	untrackedTruncated: boolean;
	/** When (ISO 8601). */
	at: string;
}

/** Every git command reads paths literally and quotes none (the output is NUL-separated anyway). */
const LITERAL = ["--literal-pathspecs", "-c", "core.quotepath=off"];
const NO_EXTERNAL = ["--no-color", "--no-ext-diff", "--no-textconv"];

type Operation = "merge" | "rebase" | "cherry-pick" | "revert";
const OPERATION_FILES: ReadonlyArray<[string, Operation]> = [
	["MERGE_HEAD", "merge"],
	["rebase-merge", "rebase"],
	["rebase-apply", "rebase"],
	["CHERRY_PICK_HEAD", "cherry-pick"],
	["REVERT_HEAD", "revert"],
];

export interface GitView {
	root: string;
	head?: string;
	branch?: string;
	operation?: Operation;
	/** What the diffs are against: a commit, or the empty tree. */
	baseRef: string;
	baseCommit?: string;
}

async function operationInProgress(cwd: string): Promise<Operation | undefined> {
	const paths = await gitPaths(cwd, OPERATION_FILES.map(([name]) => name));
	for (let i = 0; i < paths.length; i++) {
		try {
			await access(paths[i]!);
			return OPERATION_FILES[i]![1];
		} catch {
			// not under way
		}
	}
	return undefined;
}

/** The repository's state and the base a listing is against. */
export async function gitView(cwd: string, root: string, since: Since, start: SessionStart | undefined): Promise<GitView> {
	const [head, branch, operation] = await Promise.all([headCommit(cwd), currentBranch(cwd), operationInProgress(cwd)]);
	const baseCommit = since === "session_start" ? (start?.head ?? undefined) : head;
	// No commit to compare with: everything is new against the empty tree (its id depends on the hash git uses).
	const baseRef = baseCommit ?? (await git(cwd, ["hash-object", "-t", "tree", "/dev/null"])).trim();
	return { root, head, branch: head ? branch : undefined, operation, baseRef, baseCommit };
}

export interface GitListing {
	files: ChangedFile[];
	total: number;
}

/**
 * The changed files under the working directory against the view's base, sorted by path, at most
 * MAX_CHANGED_FILES; with `only`, just those paths (a diff or a revert needs no token of the others).
 */
export async function listGitChanges(cwd: string, view: GitView, start: SessionStart | undefined, since: Since, only?: ReadonlySet<string>): Promise<GitListing> {
	const [raw, others, unmerged] = await Promise.all([
		// A diff or a revert of a few paths needs no line counts: git then reads no file's content.
		git(cwd, [...LITERAL, "diff", "--raw", ...(only ? [] : ["--numstat"]), "-z", "-M", "--relative", ...NO_EXTERNAL, view.baseRef, "--", "."]),
		git(cwd, [...LITERAL, "ls-files", "--others", "--exclude-standard", "-z", "--", "."]),
		// Against a commit git reports an unmerged path as modified: the index knows it is unmerged.
		git(cwd, [...LITERAL, "diff", "--name-only", "-z", "--diff-filter=U", "--relative", "--", "."]),
	]);
	const conflicts = new Set(parseNulPaths(unmerged));
	type Entry = Omit<ChangedFile, "token">;
	let entries: Entry[] = parseRawNumstat(raw).map(({ conflicted, ...change }) => (conflicted || conflicts.has(change.path) ? { ...change, conflicted: true as const } : change));
	for (const path of parseNulPaths(others)) entries.push({ path, status: "untracked", added: 0, removed: 0, binary: false });
	if (only) entries = entries.filter((entry) => only.has(entry.path));
	entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
	const sessionStart = since === "session_start" ? start : undefined;

	// Past the bound files are counted, not examined (an untracked one there before the session is counted too).
	const examined = await inParallel(entries.slice(0, MAX_CHANGED_FILES), async (entry): Promise<ChangedFile | undefined> => {
		const untracked = entry.status === "untracked";
		// An untracked file has no numstat: the read that makes its token counts its lines too.
		const { token, lines, binary, note } = await examineFile(join(cwd, entry.path), untracked);
		if (!untracked) return { ...entry, token };
		const then = sessionStart?.untracked.get(entry.path);
		if (then !== undefined && then === token) return undefined; // there before the session, and unchanged: not its change
		const notes = [note, then !== undefined ? "untracked already when the session started, changed since: its content then was not kept, so it is shown whole" : undefined].filter(Boolean);
		return { ...entry, added: lines ?? 0, binary: binary ?? false, token, ...(notes.length ? { note: notes.join("; ") } : {}) };
	});
	const files = examined.filter((file): file is ChangedFile => file !== undefined);
	return { files, total: files.length + Math.max(0, entries.length - MAX_CHANGED_FILES) };
}

export interface DiffText {
	diff: string;
	binary: boolean;
	truncated: boolean;
}

/** One changed file's unified diff against the base (an untracked one against nothing), at most MAX_DIFF_BYTES. */
export async function gitFileDiff(cwd: string, baseRef: string, file: ChangedFile): Promise<DiffText> {
	const { output, truncated } =
		file.status === "untracked"
			? await gitBounded(cwd, ["diff", "--no-index", ...NO_EXTERNAL, "--", "/dev/null", file.path], MAX_DIFF_BYTES, { okExitCodes: [1] })
			: await gitBounded(cwd, [...LITERAL, "diff", ...NO_EXTERNAL, "-M", "--relative", baseRef, "--", ...(file.oldPath ? [file.oldPath, file.path] : [file.path])], MAX_DIFF_BYTES);
	const binary = /^Binary files .* differ$/m.test(output) || output.includes("\nGIT binary patch\n");
	return { diff: output, binary, truncated };
}

/**
 * Puts one file back as the base has it: a file the base has is restored (index and working tree) from it;
 * one it does not have (new, untracked) goes to the trash and out of the index; a rename does both.
 * `absolute`/`oldAbsolute` were checked to be inside the working directory.
 */
export async function revertGitFile(
	cwd: string,
	baseRef: string,
	file: ChangedFile,
	absolute: string,
	trash: Trash,
): Promise<{ outcome: "restored" | "trashed"; trashedTo?: string }> {
	const restore = (path: string) => git(cwd, [...LITERAL, "restore", `--source=${baseRef}`, "--staged", "--worktree", "--", path]);
	const unstage = (path: string) => git(cwd, [...LITERAL, "rm", "--cached", "-q", "--ignore-unmatch", "--", path]);
	const toTrash = async (): Promise<string | undefined> => {
		try {
			return await trash.put(absolute, file.path);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined; // gone from the working tree already
			throw error;
		}
	};
	switch (file.status) {
		case "untracked": {
			const trashedTo = await toTrash();
			return { outcome: "trashed", trashedTo };
		}
		case "added": {
			const trashedTo = await toTrash();
			await unstage(file.path);
			return { outcome: "trashed", trashedTo };
		}
		case "renamed": {
			await restore(file.oldPath!);
			const trashedTo = await toTrash();
			await unstage(file.path);
			return { outcome: "restored", trashedTo };
		}
		default:
			await restore(file.path);
			return { outcome: "restored" };
	}
}
