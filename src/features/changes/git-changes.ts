/**
 * The changes of a session's working directory inside a git repository: listed against a base commit (HEAD,
 * or the commit of the session's first prompt), and one file's diff (a revert to the base: git-revert.ts). Every git command
 * runs through the features' runner (../git.ts: awaited, with a deadline, its output bounded), from the
 * working directory with `--relative`, so paths are relative to it and nothing outside it is listed or touched;
 * pathspecs are literal (a file named `*` is that file).
 */
import { access, lstat, readlink } from "node:fs/promises";
import { CodedError } from "../../shared/errors.js";
import { join } from "node:path";
import { currentBranch, git, gitBounded, gitPaths, headCommit } from "../git.js";
import { decodeRecords, parseNulPaths, parseRawNumstat } from "./git-output.js";
import { examineFile } from "./file-token.js";
import { inParallel } from "./in-parallel.js";
import { isBinary } from "./line-count.js";
import { MAX_KEPT_BYTES, readText, recordedDiff } from "./recorded-changes.js";
import { type ChangedFile, MAX_CHANGED_FILES, MAX_DIFF_BYTES, type Since } from "./schemas.js";

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
export const LITERAL = ["--literal-pathspecs", "-c", "core.quotepath=off"];
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

/**
 * Files a listing found that a diff or a revert must treat apart from the others, by path. `undecodable-name`:
 * a name that is not UTF-8, which the protocol cannot name (git's bytes decode with U+FFFD); `submodule`: the
 * change is the commit a submodule points at, which a revert of the index would not bring to its checkout;
 * `nested-repository`: an untracked folder git lists whole, as it holds a repository of its own; `index-removed`:
 * a file taken out of the index (`git rm --cached`) that the working tree still has, which git reports twice
 * (deleted, and untracked) and which is one file the base has.
 */
export type SpecialFile = "undecodable-name" | "submodule" | "nested-repository" | "index-removed";

/** What a listing says of each special file (its `note`). */
export const SPECIAL_NOTES: Record<SpecialFile, string> = {
	"undecodable-name": "its name is not valid UTF-8 (shown with U+FFFD), so it cannot be diffed or reverted here: use git itself",
	submodule: "a submodule: the diff shows the commit it points at; a revert would not change its checkout, so it is refused (use git submodule update)",
	"nested-repository": "a folder holding a git repository of its own: it has no diff here; a revert moves the whole folder to the trash",
	"index-removed":
		"taken out of git's index (git rm --cached) but still in the working tree: counted as the base's lines removed and the file's added; a revert puts it back in the index as the base has it",
};

/** The token of a file whose name cannot be read: never a token a file's content gives. */
const UNDECODABLE_TOKEN = "undecodable-name";

export interface GitListing {
	files: ChangedFile[];
	total: number;
	/** The listed files to treat apart, by path (see SpecialFile). */
	special: ReadonlyMap<string, SpecialFile>;
}

/**
 * The changed files under the working directory against the view's base, sorted by path, at most
 * MAX_CHANGED_FILES; with `only`, just those paths (a diff or a revert needs no token of the others).
 */
export async function listGitChanges(cwd: string, view: GitView, start: SessionStart | undefined, since: Since, only?: ReadonlySet<string>): Promise<GitListing> {
	// Read as bytes (latin1), as file names need not be UTF-8: decodeRecords tells those that are not.
	const bytes = { encoding: "latin1" } as const;
	const [raw, others, unmerged] = (
		await Promise.all([
			// A diff or a revert of a few paths needs no line counts: git then reads no file's content.
			git(cwd, [...LITERAL, "diff", "--raw", ...(only ? [] : ["--numstat"]), "-z", "-M", "--relative", ...NO_EXTERNAL, view.baseRef, "--", "."], bytes),
			git(cwd, [...LITERAL, "ls-files", "--others", "--exclude-standard", "-z", "--", "."], bytes),
			// Against a commit git reports an unmerged path as modified: the index knows it is unmerged.
			git(cwd, [...LITERAL, "diff", "--name-only", "-z", "--diff-filter=U", "--relative", "--", "."], bytes),
		])
	).map(decodeRecords);
	const conflicts = new Set(parseNulPaths(unmerged!.text));
	const special = new Map<string, SpecialFile>();
	type Entry = Omit<ChangedFile, "token">;
	const byPath = new Map<string, Entry>();
	for (const { conflicted, submodule, ...change } of parseRawNumstat(raw!.text)) {
		byPath.set(change.path, conflicted || conflicts.has(change.path) ? { ...change, conflicted: true as const } : change);
		if (submodule) special.set(change.path, "submodule");
	}
	for (const listed of parseNulPaths(others!.text)) {
		// git lists a folder whole (its name ends with "/") when it holds a repository of its own.
		const path = listed.endsWith("/") ? listed.slice(0, -1) : listed;
		if (path !== listed) special.set(path, "nested-repository");
		const tracked = byPath.get(path);
		if (tracked?.status === "deleted") {
			// Out of the index, still in the working tree: one file, which the base has.
			byPath.set(path, { ...tracked, status: "modified" });
			special.set(path, "index-removed");
			continue;
		}
		byPath.set(path, { path, status: "untracked", added: 0, removed: 0, binary: false });
	}
	const undecodable = new Set([...raw!.undecodable, ...others!.undecodable]);
	// A rename from such a name cannot be put back either.
	for (const entry of byPath.values()) if (undecodable.has(entry.path) || (entry.oldPath !== undefined && undecodable.has(entry.oldPath))) special.set(entry.path, "undecodable-name");
	let entries = [...byPath.values()];
	if (only) entries = entries.filter((entry) => only.has(entry.path));
	entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
	const sessionStart = since === "session_start" ? start : undefined;

	// Past the bound files are counted, not examined (an untracked one there before the session is counted too).
	const examined = await inParallel(entries.slice(0, MAX_CHANGED_FILES), async (entry): Promise<ChangedFile | undefined> => {
		const kind = special.get(entry.path);
		if (kind === "undecodable-name") return { ...entry, token: UNDECODABLE_TOKEN, note: SPECIAL_NOTES[kind] };
		const untracked = entry.status === "untracked";
		// An untracked file has no numstat: the read that makes its token counts its lines too.
		const { token, lines, binary, note } = await examineFile(join(cwd, entry.path), untracked || kind === "index-removed");
		if (kind === "index-removed") return { ...entry, added: lines ?? 0, binary: entry.binary || binary === true, token, note: [note, SPECIAL_NOTES[kind]].filter(Boolean).join("; ") };
		if (!untracked) return { ...entry, token, ...(kind ? { note: SPECIAL_NOTES[kind] } : {}) };
		const then = sessionStart?.untracked.get(entry.path);
		if (then !== undefined && then === token) return undefined; // there before the session, and unchanged: not its change
		const notes = [
			kind ? SPECIAL_NOTES[kind] : note,
			then !== undefined ? "untracked already when the session started, changed since: its content then was not kept, so it is shown whole" : undefined,
		].filter(Boolean);
		return { ...entry, added: lines ?? 0, binary: binary ?? false, token, ...(notes.length ? { note: notes.join("; ") } : {}) };
	});
	const files = examined.filter((file): file is ChangedFile => file !== undefined);
	return { files, total: files.length + Math.max(0, entries.length - MAX_CHANGED_FILES), special };
}

export interface DiffText {
	diff: string;
	binary: boolean;
	truncated: boolean;
	/** Why the diff is empty or made otherwise than by git. */
	note?: string;
}

/**
 * One changed file's unified diff against the base (an untracked one against nothing), at most MAX_DIFF_BYTES.
 * An untracked entry is looked at first, as `git diff --no-index` answers a folder, a link to one or a file gone
 * since with an error and the exit status of "they differ", which would read as an empty diff: a link's diff is
 * where it leads (git's own way for links), a folder has none (said so), a file gone is `not_found`.
 */
export async function gitFileDiff(cwd: string, baseRef: string, file: ChangedFile, special?: SpecialFile): Promise<DiffText> {
	if (special === "undecodable-name") throw new CodedError("invalid_command", `${JSON.stringify(file.path)}: ${SPECIAL_NOTES[special]}`);
	if (special === "nested-repository") return { diff: "", binary: false, truncated: false, note: SPECIAL_NOTES[special] };
	if (special === "index-removed") return indexRemovedDiff(cwd, baseRef, file.path);
	if (file.status === "untracked") {
		const absolute = join(cwd, file.path);
		const stats = await lstat(absolute).catch(() => undefined);
		if (!stats) throw new CodedError("not_found", `${JSON.stringify(file.path)} is not in the working directory any more: list the changes again`);
		if (stats.isSymbolicLink()) {
			const { diff } = recordedDiff(file.path, { path: file.path, content: null, token: "" }, { token: "", text: await readlink(absolute) });
			return { diff, binary: false, truncated: false }; // the listing's note says it is a link, not followed
		}
		if (!stats.isFile()) return { diff: "", binary: false, truncated: false, note: stats.isDirectory() ? "a folder: it has no diff" : "not a regular file: it has no diff" };
	}
	const { output, truncated } =
		file.status === "untracked"
			? await gitBounded(cwd, ["diff", "--no-index", ...NO_EXTERNAL, "--", "/dev/null", file.path], MAX_DIFF_BYTES, { okExitCodes: [1] })
			: await gitBounded(cwd, [...LITERAL, "diff", ...NO_EXTERNAL, "-M", "--relative", baseRef, "--", ...(file.oldPath ? [file.oldPath, file.path] : [file.path])], MAX_DIFF_BYTES);
	const binary = /^Binary files .* differ$/m.test(output) || output.includes("\nGIT binary patch\n");
	return { diff: output, binary, truncated };
}

/**
 * The diff of a file out of the index but in the working tree: git compares the base with the index's files
 * only (it shows a deletion), so it is made here from the base's blob and the file, both bounded.
 */
async function indexRemovedDiff(cwd: string, baseRef: string, path: string): Promise<DiffText> {
	const base = await gitBounded(cwd, ["cat-file", "blob", `${baseRef}:./${path}`], MAX_KEPT_BYTES, { encoding: "latin1" });
	const now = await readText(join(cwd, path));
	const baseBytes = Buffer.from(base.output, "latin1");
	if (base.truncated || now.text === undefined) {
		return { diff: "", binary: false, truncated: false, note: `${SPECIAL_NOTES["index-removed"]}; it is too large or not text, so no diff is shown` };
	}
	if (isBinary(baseBytes) || (now.text !== null && isBinary(Buffer.from(now.text)))) return { diff: "", binary: true, truncated: false, note: SPECIAL_NOTES["index-removed"] };
	const { diff, note } = recordedDiff(path, { path, content: baseBytes.toString("utf8"), token: "" }, { token: "", text: now.text });
	return { diff, binary: false, truncated: false, note: [SPECIAL_NOTES["index-removed"], note].filter(Boolean).join("; ") };
}
