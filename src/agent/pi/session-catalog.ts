/**
 * Finds recorded sessions on disk: pi's layout `<agent-dir>/sessions/<encoded-cwd>/<timestamp>_<id>.jsonl`,
 * through an index of every session file kept in memory (src/agent/pi/session-index.ts). The runtime's lookups
 * (`findById`, `findReference`, `findNewest`) never hold the event loop: a known id is one stat of its file; an
 * unknown id, a prefix or a vanished file waits for one refresh of the index off the event loop, shared with
 * every lookup made meanwhile, so a file another process wrote after start is found and a burst of unknown ids
 * costs one refresh. The synchronous forms (`byId`, `resolve`, `newestFor`, `files`) refresh on the caller's
 * thread, for tools and tests, never a request. Pruning walks every session file, off the event loop too.
 */
import { CodedError } from "../../shared/errors.js";
import { lstat, readdir, unlink } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { type SessionCatalog, type SessionFileRef, type SessionSearchHit, type SessionSearchResult, type StaleSessionFile, type TrashedSession, USER_SESSION_KINDS } from "../types.js";
import { type AsyncDisk, type FolderReader, headerId, REAL_FOLDERS, sessionDisk, type SyncDisk } from "./session-disk.js";
import { type Plan, read, runAsync, runSync, SessionIndex } from "./session-index.js";
import { firstHit, type ScannedSummary, snippetOf } from "./session-scan.js";
import { SummaryCache } from "./session-summaries.js";
import { SessionTrash } from "./session-trash.js";

export { type FolderReader, REAL_FOLDERS } from "./session-disk.js";

/** pi's project folders: the cwd encoded between double dashes (see projectFolderName). */
const PROJECT_FOLDER = /^--.*--$/;

export class PiSessionCatalog implements SessionCatalog {
	private readonly disk: { sync: SyncDisk; async: AsyncDisk };
	private readonly index: SessionIndex;
	private readonly summaries = new SummaryCache();
	private readonly trashFolder: SessionTrash;

	constructor(
		private readonly sessionsDir: string,
		reader: FolderReader = REAL_FOLDERS,
		/** Told of a `.jsonl` entry skipped because it is not a regular file (once per listing of its folder). */
		warn: (line: string) => void = () => {},
	) {
		this.disk = sessionDisk(reader, warn);
		this.index = new SessionIndex(sessionsDir, this.disk);
		this.trashFolder = new SessionTrash(join(dirname(sessionsDir), "trash", "sessions"));
	}

	/** Asynchronous refreshes of the index so far (tests count them). */
	get refreshes(): number {
		return this.index.refreshes;
	}

	/** The newest recorded session whose folder belongs to `cwd`, if any (for --continue). */
	async findNewest(cwd: string): Promise<SessionFileRef | undefined> {
		await this.index.refresh();
		const files = this.index.filesIn(join(this.sessionsDir, projectFolderName(cwd)));
		const modified = await runAsync(read("modified", files.map((f) => f.path)), this.disk.async);
		return newest(files.map((f, i) => ({ ...f, modifiedMs: modified[i] ?? 0 })));
	}

	/** The session file with exactly this id, if recorded; the index is refreshed first only when it does not know the id. */
	async findById(id: string): Promise<SessionFileRef | undefined> {
		const known = this.index.pathsOf(id)[0];
		const modifiedMs = known === undefined ? undefined : await this.disk.async.modified(known);
		if (known !== undefined && modifiedMs !== undefined) return { id, path: known, modifiedMs };
		await this.index.refresh(); // unknown, or its file is gone: the disk may have changed since the last look
		const path = this.index.pathsOf(id)[0];
		return path === undefined ? undefined : { id, path, modifiedMs: (await this.disk.async.modified(path)) ?? 0 };
	}

	/**
	 * Resolves what a user typed: a path to a session file, a full id, or an unambiguous id prefix. A path must
	 * lie in the sessions folder unless `anywhere` (the operator's own command line). Rejects with an error that
	 * says what was not found, which sessions a prefix matched, or that a path is outside the sessions folder.
	 */
	async findReference(reference: string, baseDir: string, options: { anywhere?: boolean } = {}): Promise<SessionFileRef> {
		const trimmed = trimmedReference(reference);
		if (looksLikePath(trimmed)) return runAsync(this.pathPlan(trimmed, baseDir, options), this.disk.async);
		const exact = await this.findById(trimmed); // refreshes the index when the id is unknown
		if (exact) return exact;
		const { id, path } = chosen(trimmed, this.index.matching(trimmed));
		return { id, path, modifiedMs: (await this.disk.async.modified(path)) ?? 0 };
	}

	/** Every recorded session file (unsorted), read on the caller's thread. */
	files(): Array<{ id: string; path: string }> {
		this.index.refreshNow();
		return this.index.files();
	}

	/** findNewest on the caller's thread. */
	newestFor(cwd: string): SessionFileRef | undefined {
		this.index.refreshNow();
		const files = this.index.filesIn(join(this.sessionsDir, projectFolderName(cwd)));
		return newest(files.map((f) => ({ ...f, modifiedMs: this.disk.sync.modified(f.path) ?? 0 })));
	}

	/** findById on the caller's thread. */
	byId(id: string): SessionFileRef | undefined {
		this.index.refreshNow();
		const path = this.index.pathsOf(id)[0];
		return path === undefined ? undefined : { id, path, modifiedMs: this.disk.sync.modified(path) ?? 0 };
	}

	/** findReference on the caller's thread; throws instead of rejecting. */
	resolve(reference: string, baseDir: string, options: { anywhere?: boolean } = {}): SessionFileRef {
		const trimmed = trimmedReference(reference);
		if (looksLikePath(trimmed)) return runSync(this.pathPlan(trimmed, baseDir, options), this.disk.sync);
		this.index.refreshNow();
		const path = this.index.pathsOf(trimmed)[0];
		const hit = path === undefined ? chosen(trimmed, this.index.matching(trimmed)) : { id: trimmed, path };
		return { ...hit, modifiedMs: this.disk.sync.modified(hit.path) ?? 0 };
	}

	/** A session file named by its path: a regular file with a session header, in the sessions folder unless `anywhere`. */
	private *pathPlan(reference: string, baseDir: string, options: { anywhere?: boolean }): Plan<SessionFileRef> {
		const path = isAbsolute(reference) ? reference : resolve(baseDir, reference);
		if (!(yield* read("file", [path]))[0]) throw new CodedError("not_found", `No session file at ${path}`);
		if (!options.anywhere) {
			// The file's real location (symbolic links resolved) must be inside the sessions folder.
			const [root, real] = yield* read("real", [this.sessionsDir, path]);
			if (root === undefined || real === undefined || !real.startsWith(root + sep)) {
				throw new CodedError("forbidden", `${path} is outside the sessions folder ${this.sessionsDir}: open sessions there by path, id or id prefix`);
			}
		}
		const [id] = yield* read("header", [path]);
		if (!id) throw new CodedError("invalid_command", `${path} is not a session file (no session header, or not a regular file)`);
		const [modifiedMs] = yield* read("modified", [path]);
		return { id, path, modifiedMs: modifiedMs ?? 0 };
	}

	/**
	 * Session files older than `beforeMs`, oldest first, in pi's layout only: `<sessions>/--<cwd>--/<name>.jsonl`,
	 * regular files (never a symbolic link, nor anything in a linked folder) whose first line is a session
	 * header. Nothing when the sessions folder itself is a link (its files live elsewhere).
	 */
	async staleFiles(beforeMs: number): Promise<StaleSessionFile[]> {
		if (!(await isRealDirectoryAsync(this.sessionsDir))) return [];
		const found: StaleSessionFile[] = [];
		for (const folder of await readdirQuietly(this.sessionsDir)) {
			const dir = join(this.sessionsDir, folder);
			if (!PROJECT_FOLDER.test(folder) || !(await isRealDirectoryAsync(dir))) continue;
			for (const name of await readdirQuietly(dir)) {
				if (!name.endsWith(".jsonl")) continue;
				const file = await this.staleFile(join(dir, name), beforeMs);
				if (file) found.push(file);
			}
		}
		return found.sort((a, b) => a.modifiedMs - b.modifiedMs);
	}

	/** Deletes a file `staleFiles` listed, once it is checked again (it may have changed meanwhile). */
	async removeStale(file: StaleSessionFile, beforeMs: number): Promise<void> {
		const folder = dirname(file.path);
		if (dirname(folder) !== this.sessionsDir || !PROJECT_FOLDER.test(basename(folder))) {
			throw new CodedError("forbidden", `${file.path} is not in the sessions folder's layout; it was not removed`);
		}
		if (!(await isRealDirectoryAsync(this.sessionsDir)) || !(await isRealDirectoryAsync(folder))) {
			throw new CodedError("forbidden", `${file.path} lies in a linked folder; it was not removed`);
		}
		const current = await this.staleFile(file.path, beforeMs);
		if (!current || current.id !== file.id) throw new CodedError("conflict", `${file.path} changed since it was listed (newer, replaced or gone); it was not removed`);
		await unlink(file.path);
		this.index.forget(file.path);
	}

	/** The file as a pruning candidate: a regular session file last modified before `beforeMs`, else undefined. */
	private async staleFile(path: string, beforeMs: number): Promise<StaleSessionFile | undefined> {
		let stats;
		try {
			stats = await lstat(path);
		} catch {
			return undefined;
		}
		if (!stats.isFile() || stats.mtimeMs >= beforeMs) return undefined;
		const id = await headerId(path).catch(() => undefined);
		return id === undefined ? undefined : { id, path, modifiedMs: stats.mtimeMs, size: stats.size };
	}

	/**
	 * Summaries of this project's sessions, or of all projects', newest first: each file read line by line
	 * (session-scan.ts) the first time it is seen, then again only when its size or time changed.
	 */
	async list(scope: "project" | "all", cwd: string): Promise<ScannedSummary[]> {
		await this.index.refresh();
		const files = scope === "all" ? this.index.files() : this.index.filesIn(join(this.sessionsDir, projectFolderName(cwd)));
		const rows = await this.summaries.of(files.map((f) => f.path));
		const times = new Map(rows.map((row) => [row, Date.parse(row.modified)])); // parsed once, not per comparison
		return rows.sort((a, b) => times.get(b)! - times.get(a)!);
	}

	/**
	 * Sessions whose title (name, else first message) or user-visible message text holds `query` (plain text,
	 * any case), newest first, each with a snippet around its first hit. Files are read one at a time, line by
	 * line, with a turn of the event loop between files; it stops at `limit` hits or after
	 * `SEARCH_TIME_LIMIT_MS` (then `truncated`).
	 */
	async search(query: string, scope: "project" | "all", cwd: string, limit: number, options: { internal?: boolean } = {}): Promise<SessionSearchResult> {
		const needle = query.toLowerCase();
		const deadline = Date.now() + SEARCH_TIME_LIMIT_MS;
		const listed = await this.list(scope, cwd);
		const rows = options.internal ? listed : listed.filter((row) => USER_SESSION_KINDS.includes(row.kind));
		const hits: SessionSearchHit[] = [];
		let scanned = 0;
		for (const session of rows) {
			if (hits.length >= limit || Date.now() > deadline) return { hits, scanned, truncated: true };
			await new Promise<void>((resolve) => setImmediate(resolve)); // other clients' requests between files
			scanned++;
			const title = session.name ?? session.firstMessage;
			const inTitle = snippetOf(title, needle);
			if (inTitle !== undefined) {
				hits.push({ session, matchedIn: "title", snippet: inTitle });
				continue;
			}
			const inMessage = await firstHit(session.path, needle, session.name === undefined);
			if (inMessage !== undefined) hits.push({ session, matchedIn: "message", snippet: inMessage });
		}
		return { hits, scanned, truncated: false };
	}

	/** Moves a recorded session file to `<agent-dir>/trash/sessions/`; the index forgets it at once. */
	async trash(file: SessionFileRef): Promise<TrashedSession> {
		const [summary] = await this.summaries.of([file.path]);
		const record = await this.trashFolder.put(file.path, {
			sessionId: file.id,
			title: (summary?.name ?? summary?.firstMessage ?? "").split("\n")[0]!.slice(0, TRASH_TITLE_CHARS),
			cwd: summary?.cwd ?? "",
		});
		this.index.forget(file.path);
		return record;
	}

	trashList(): Promise<TrashedSession[]> {
		return this.trashFolder.list();
	}

	/** Puts a trashed session back; the index finds it on its next refresh (its folder changed). */
	async restore(trashId: string): Promise<TrashedSession> {
		const record = await this.trashFolder.restore(trashId);
		await this.index.refresh();
		return record;
	}
}

/** How long one search may read files before it answers with what it found (`truncated`). */
export const SEARCH_TIME_LIMIT_MS = 10_000;

/** Characters of a session's title kept in its trash record. */
const TRASH_TITLE_CHARS = 200;

/** pi's folder name for a project: the cwd with separators replaced, wrapped in dashes. */
function projectFolderName(cwd: string): string {
	return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

function looksLikePath(reference: string): boolean {
	return reference.includes("/") || reference.includes("\\") || reference.endsWith(".jsonl");
}

/** What a user typed, trimmed; an empty reference is refused. */
function trimmedReference(reference: string): string {
	const trimmed = reference.trim();
	if (!trimmed) throw new CodedError("invalid_command", "Session reference is empty: give an id, an id prefix or a path");
	return trimmed;
}

/** The one file an id prefix names; throws saying that none or several match. */
function chosen(prefix: string, matches: Array<{ id: string; path: string }>): { id: string; path: string } {
	if (matches.length === 1) return matches[0]!;
	if (matches.length === 0) throw new CodedError("unknown_session", `No recorded session matches "${prefix}"`);
	const sample = matches.slice(0, 5).map((m) => m.id).join(", ");
	throw new CodedError("invalid_command", `Session prefix "${prefix}" is ambiguous: ${matches.length} sessions match (${sample})`);
}

/** The most recently modified of the files. */
function newest(refs: SessionFileRef[]): SessionFileRef | undefined {
	return refs.sort((a, b) => b.modifiedMs - a.modifiedMs)[0];
}

/** A folder that is not a symbolic link. */
async function isRealDirectoryAsync(path: string): Promise<boolean> {
	try {
		return (await lstat(path)).isDirectory();
	} catch {
		return false;
	}
}

async function readdirQuietly(dir: string): Promise<string[]> {
	try {
		return await readdir(dir);
	} catch {
		return [];
	}
}
