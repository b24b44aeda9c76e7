/**
 * `files_list`: one folder level of the session's working directory, a page at a time. The folder's names are
 * read with an async directory stream (at most MAX_DIRECTORY_ENTRIES of them, never the folders below), sorted
 * (folders first, then by name), and only the page asked for is examined further: each entry's size, where a
 * link leads, and whether git ignores it. So a 10,000-entry folder costs one pass over its names per page, and
 * nothing waits on the event loop for more than a sort.
 */
import { type Dirent, type Stats } from "node:fs";
import { lstat, opendir, realpath, stat } from "node:fs/promises";
import { sep } from "node:path";
import { CodedError } from "../../shared/errors.js";
import { checkInside, confine, fileError, GIT_DIR, isInside, shown } from "./confine.js";
import { ignoredNames } from "./ignored.js";
import { DEFAULT_PAGE, type FileEntry, type FileKind, type FilesListResult, type LinkTarget, MAX_DIRECTORY_ENTRIES } from "./schemas.js";

/**
 * How many entries are examined at once. Each `lstat` is queued to the thread pool from the event loop, and a
 * page's 1,000 queued in one go showed in a CPU profile of four listings at once as the longest stretches of the
 * native lstat calls; in batches the loop turns between them (event-loop delay p99 over 20 rounds of four
 * listings of 1,000, in-process, two runs each, back to back on a loaded 2-core machine: 77–117 ms in one batch,
 * 46–69 ms in batches of 64).
 */
const DESCRIBE_BATCH = 64;

interface Named {
	readonly name: string;
	readonly kind: FileKind;
	/** For the sort: the name lower-cased (then the name itself breaks ties). */
	readonly key: string;
	/** The name cannot be given back to open the entry (not UTF-8 on disk, or holding a backslash). */
	readonly unnamable?: true;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A name read as bytes, as text: UTF-8 as it is; anything else with U+FFFD for its bad bytes (as Node would
 * decode it), marked unnamable, since that spelling names no file. A backslash is refused in a client's path
 * (confine.ts), so a name holding one cannot be opened either.
 */
function nameOf(bytes: Buffer): { name: string; unnamable?: true } {
	try {
		const name = strictUtf8.decode(bytes);
		return name.includes("\\") ? { name, unnamable: true } : { name };
	} catch {
		return { name: bytes.toString("utf8"), unnamable: true };
	}
}

function kindOf(entry: Dirent): FileKind {
	if (entry.isDirectory()) return "directory";
	if (entry.isFile()) return "file";
	if (entry.isSymbolicLink()) return "symlink";
	return "other";
}

/** Folders first, then by name ignoring case, then by name. */
function byFolderThenName(a: Named, b: Named): number {
	const folders = Number(b.kind === "directory") - Number(a.kind === "directory");
	if (folders !== 0) return folders;
	if (a.key !== b.key) return a.key < b.key ? -1 : 1;
	return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** The names in the folder at `real` (at most MAX_DIRECTORY_ENTRIES), and whether that was all of them. */
async function readNames(real: string, relative: string): Promise<{ names: Named[]; complete: boolean }> {
	const names: Named[] = [];
	let dir;
	try {
		// Names as bytes: one that is not UTF-8 is told apart (nameOf) rather than decoded as if it were.
		// (Node reads "buffer" as it does for readdir; its types name only string encodings for opendir.)
		dir = await opendir(real, { bufferSize: 1024, encoding: "buffer" as BufferEncoding });
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOTDIR") {
			throw new CodedError("invalid_command", `Invalid command: ${shown(relative)} is not a folder: read it with files_read`);
		}
		throw fileError(error, relative);
	}
	try {
		for await (const entry of dir) {
			if (names.length === MAX_DIRECTORY_ENTRIES) return { names, complete: false };
			const { name, unnamable } = nameOf(entry.name as unknown as Buffer);
			names.push({ name, kind: kindOf(entry), key: name.toLowerCase(), ...(unnamable ? { unnamable } : {}) });
		}
	} catch (error) {
		throw fileError(error, relative);
	} finally {
		// Ended early (the cap, an error), the stream is still open; a finished one is closed already.
		await dir.close().catch(() => undefined);
	}
	return { names, complete: true };
}

/** Where a link inside the root leads: followed only when it stays inside (as files_read follows it). */
async function linkTarget(root: string, path: string): Promise<{ target: LinkTarget; stats?: Stats }> {
	let real: string;
	try {
		real = await realpath(path);
	} catch {
		return { target: "missing" };
	}
	if (!isInside(root, real) || real.slice(root.length).split(sep).includes(GIT_DIR)) return { target: "outside" };
	try {
		const stats = await stat(real);
		return { target: stats.isDirectory() ? "directory" : stats.isFile() ? "file" : "other", stats };
	} catch {
		return { target: "missing" };
	}
}

/** One page of the entry's details: size for files, where links lead. */
async function describe(root: string, dir: string, relative: string, named: Named): Promise<FileEntry> {
	const path = relative ? `${relative}/${named.name}` : named.name;
	const entry: FileEntry = { name: named.name, path, kind: named.kind };
	// Its spelling opens nothing (or another file): listed only, never looked at further.
	if (named.unnamable) return { ...entry, unnamable: true };
	const full = `${dir}${sep}${named.name}`;
	try {
		if (named.kind === "file") entry.size = (await lstat(full)).size;
		else if (named.kind === "symlink") {
			const { target, stats } = await linkTarget(root, full);
			entry.target = target;
			if (target === "file" && stats) entry.size = stats.size;
		}
	} catch {
		// Gone since the folder was read: listed as it was, without a size.
	}
	return entry;
}

export interface ListRequest {
	path?: string;
	offset?: number;
	after?: string;
	limit?: number;
}

/**
 * A page cursor names the entry a page ended with, as it sorts: "d:" for a folder or "f:" for anything else,
 * then its name (no name holds a "/", and none is empty).
 */
function cursorOf(named: Named): string {
	return `${named.kind === "directory" ? "d" : "f"}:${named.name}`;
}

function fromCursor(cursor: string): Named {
	const match = /^([df]):([^/]+)$/.exec(cursor);
	if (!match) throw new CodedError("invalid_command", `Invalid command: \`after\` ${shown(cursor)} is not a cursor files_list answered: pass its \`nextAfter\` as it came`);
	const name = match[2]!;
	return { name, kind: match[1] === "d" ? "directory" : "file", key: name.toLowerCase() };
}

/** Where the page after `cursor` starts in the sorted `names`: at the first entry sorting after it (binary search). */
function startAfter(names: readonly Named[], cursor: Named): number {
	let low = 0;
	let high = names.length;
	while (low < high) {
		const middle = (low + high) >>> 1;
		if (byFolderThenName(names[middle]!, cursor) <= 0) low = middle + 1;
		else high = middle;
	}
	return low;
}

/** One page of the folder `path` (the root when absent) of the session's working directory `cwd`. */
export async function listFiles(cwd: string, request: ListRequest): Promise<FilesListResult> {
	if (request.after !== undefined && request.offset !== undefined) {
		throw new CodedError("invalid_command", "Invalid command: give `offset` or `after`, not both");
	}
	const cursor = request.after === undefined ? undefined : fromCursor(request.after);
	const { root, real, relative } = await confine(cwd, request.path ?? "");
	const { names, complete } = await readNames(real, relative);
	// The folder is the one checked: a parent swapped for a link while it was read would show here.
	let again: string;
	try {
		again = await realpath(real);
	} catch (error) {
		throw fileError(error, relative);
	}
	if (again !== real) throw new CodedError("conflict", `${shown(relative)} changed while it was listed (a folder became a link); list it again`);
	checkInside(root, again, relative);

	names.sort(byFolderThenName);
	const offset = cursor ? startAfter(names, cursor) : (request.offset ?? 0);
	const limit = request.limit ?? DEFAULT_PAGE;
	const page = names.slice(offset, offset + limit);
	const entries: FileEntry[] = [];
	for (let at = 0; at < page.length; at += DESCRIBE_BATCH) {
		entries.push(...(await Promise.all(page.slice(at, at + DESCRIBE_BATCH).map((named) => describe(root, real, relative, named)))));
	}
	// Git's own folder is listed but never entered, nor asked about.
	const asked = entries.filter((entry) => entry.name !== GIT_DIR && !entry.unnamable);
	const answer = await ignoredNames(real, asked.map((entry) => ({ name: entry.name, directory: entry.kind === "directory" })));
	if ("ignored" in answer) for (const entry of asked) entry.ignored = answer.ignored.has(entry.name);
	const result: FilesListResult = { path: relative, entries, offset, total: names.length, complete };
	if (offset + page.length < names.length) {
		result.nextOffset = offset + page.length;
		result.nextAfter = cursorOf(page.at(-1)!);
	}
	if ("note" in answer) result.gitNote = answer.note;
	return result;
}
