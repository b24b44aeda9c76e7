/**
 * Outside git, the base of a session's changes is what its own edit and write tool calls found: the content
 * of each file the first time one of them touched it (or that it did not exist). That content is kept in
 * memory and recorded in the session (session.ts), bounded per file and per session; a file past the bounds
 * (or binary) is still listed, with its content then "not kept", and cannot be diffed or reverted.
 *
 * Diffs and line counts come from jsdiff (the `diff` package, the diff pi's own edit tool uses), each bounded
 * in time so a pathological pair of files never holds the event loop for long.
 */
import { createTwoFilesPatch, diffLines } from "diff";
import { join } from "node:path";
import { NotRegularFileError, openRegularFile } from "../../shared/regular-file.js";
import { ABSENT_TOKEN, fileToken } from "./file-token.js";
import { inParallel } from "./in-parallel.js";
import { leadsInside } from "./paths.js";
import { countLines, isBinary } from "./line-count.js";
import { type ChangedFile, MAX_CHANGED_FILES } from "./schemas.js";

/** A file's content is kept up to this size... */
export const MAX_KEPT_BYTES = 256 * 1024;
/** ...for at most this many files of one session... */
export const MAX_KEPT_FILES = 500;
/** ...and this much content in all. */
export const MAX_KEPT_TOTAL_BYTES = 8 * 1024 * 1024;
/** How long jsdiff may work on one file before it gives up (it then answers whole-file counts). */
export const DIFF_TIMEOUT_MS = 50;

/** What a session's edit or write found in a file the first time it touched it. */
export interface BeforeRecord {
	/** Relative to the session's working directory. */
	path: string;
	/** The text then; null: the file did not exist; undefined: not kept (`omitted` says why). */
	content?: string | null;
	omitted?: string;
	/** The file's token then (file-token.ts): tells a file whose content was not kept still unchanged. */
	token: string;
}

/** What a file holds now, as text when it can be compared. */
export interface CurrentText {
	token: string;
	/** null: absent; undefined: not text, too large or unreadable (`why`). */
	text?: string | null;
	why?: string;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Reads a file as text up to MAX_KEPT_BYTES (a missing one is null; a binary, large or odd one says why). */
export async function readText(absolute: string): Promise<{ text?: string | null; why?: string }> {
	let handle;
	try {
		// A link is not followed: its target may be outside the working directory, which is never read or written.
		handle = await openRegularFile(absolute, "refuse");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return { text: null };
		if (error instanceof NotRegularFileError) return { why: `not a regular file (${error.found})` };
		return { why: `could not be read (${(error as NodeJS.ErrnoException).code ?? "error"})` };
	}
	try {
		const { size } = await handle.stat();
		if (size > MAX_KEPT_BYTES) return { why: `${size} bytes, over the ${MAX_KEPT_BYTES / 1024} KiB kept` };
		const bytes = await handle.readFile();
		if (isBinary(bytes)) return { why: "binary" };
		try {
			return { text: utf8.decode(bytes) };
		} catch {
			return { why: "not UTF-8 text" };
		}
	} finally {
		await handle.close();
	}
}

/** What the session's first edit or write of `absolute` finds there, to keep as its base. */
export async function recordBefore(absolute: string, path: string, budget: { files: number; bytes: number }): Promise<BeforeRecord> {
	const token = await fileToken(absolute);
	if (token === ABSENT_TOKEN) return { path, content: null, token };
	if (budget.files >= MAX_KEPT_FILES || budget.bytes >= MAX_KEPT_TOTAL_BYTES) return { path, omitted: "the session's room for kept content is used up", token };
	const { text, why } = await readText(absolute);
	if (text === null) return { path, content: null, token: ABSENT_TOKEN };
	if (text === undefined || Buffer.byteLength(text) > MAX_KEPT_TOTAL_BYTES - budget.bytes) return { path, omitted: why ?? "the session's room for kept content is used up", token };
	return { path, content: text, token };
}

async function current(absolute: string): Promise<CurrentText> {
	const token = await fileToken(absolute);
	if (token === ABSENT_TOKEN) return { token, text: null };
	return { token, ...(await readText(absolute)) };
}

/** Lines added and removed from `before` to `after`; whole-file counts when jsdiff gives up. */
export function lineCounts(before: string, after: string): { added: number; removed: number; note?: string } {
	const parts = diffLines(before, after, { timeout: DIFF_TIMEOUT_MS });
	if (!parts) return { added: countLines(after), removed: countLines(before), note: "too different to compare in time: counted whole" };
	let added = 0;
	let removed = 0;
	for (const part of parts) {
		if (part.added) added += part.count;
		else if (part.removed) removed += part.count;
	}
	return { added, removed };
}

/** One recorded file's change now, or undefined when it holds what it held before. */
export async function recordedChange(cwd: string, record: BeforeRecord): Promise<(ChangedFile & { before: BeforeRecord; now: CurrentText }) | undefined> {
	// A folder of the path replaced since by a link leading out: what is there is not the working directory's.
	const now = (await leadsInside(cwd, record.path))
		? await current(join(cwd, record.path))
		: { token: "outside", why: "reached through a linked folder that leads out of the working directory, so it is not read" };
	if (now.token === record.token && record.content !== undefined) return undefined;
	const base = { path: record.path, binary: false, token: now.token, before: record, now };
	if (record.content === undefined) {
		if (now.token === record.token) return undefined;
		const status = now.text === null ? "deleted" : "modified";
		return { ...base, status, added: 0, removed: 0, binary: record.omitted === "binary", note: `its content before the session's first edit was not kept (${record.omitted})` };
	}
	if (record.content === null) {
		if (now.text === null) return undefined;
		if (now.text === undefined) return { ...base, status: "added", added: 0, removed: 0, binary: now.why === "binary", note: `new; ${now.why}` };
		return { ...base, status: "added", added: countLines(now.text), removed: 0 };
	}
	if (now.text === null) return { ...base, status: "deleted", added: 0, removed: countLines(record.content) };
	if (now.text === undefined) return { ...base, status: "modified", added: 0, removed: 0, binary: now.why === "binary", note: `now ${now.why}` };
	if (now.text === record.content) return undefined;
	const counts = lineCounts(record.content, now.text);
	return { ...base, status: "modified", added: counts.added, removed: counts.removed, ...(counts.note ? { note: counts.note } : {}) };
}

/** The recorded files that changed (with `only`, of those paths), sorted by path, at most MAX_CHANGED_FILES. */
export async function listRecordedChanges(
	cwd: string,
	records: Iterable<BeforeRecord>,
	only?: ReadonlySet<string>,
): Promise<{ files: Array<ChangedFile & { before: BeforeRecord; now: CurrentText }>; total: number }> {
	const chosen = [...records].filter((record) => !only || only.has(record.path)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
	const changed = (await inParallel(chosen, (record) => recordedChange(cwd, record))).filter((change) => change !== undefined);
	return { files: changed.slice(0, MAX_CHANGED_FILES), total: changed.length };
}

/** A unified diff of a recorded change (empty when either side is not text: `why` says so). */
export function recordedDiff(path: string, before: BeforeRecord, now: CurrentText): { diff: string; note?: string } {
	if (before.content === undefined) return { diff: "", note: `its content before the session's first edit was not kept (${before.omitted})` };
	if (now.text === undefined) return { diff: "", note: `the file is now ${now.why}` };
	const oldName = before.content === null ? "/dev/null" : `a/${path}`;
	const newName = now.text === null ? "/dev/null" : `b/${path}`;
	const patch = createTwoFilesPatch(oldName, newName, before.content ?? "", now.text ?? "", undefined, undefined, { timeout: DIFF_TIMEOUT_MS });
	if (patch === undefined) return { diff: "", note: "too different to diff in time" };
	// jsdiff starts with an `Index:`-less "===" header line: the `---`/`+++` lines are what unified diff readers need.
	return { diff: patch.replace(/^={3,}\n/m, "") };
}
