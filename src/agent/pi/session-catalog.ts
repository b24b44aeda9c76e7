/**
 * Finds recorded sessions on disk: pi's layout `<agent-dir>/sessions/<encoded-cwd>/<timestamp>_<id>.jsonl`.
 * An index of every session file is kept in memory and refreshed incrementally: a lookup stats the sessions
 * folder and each project folder, and lists again only the folders that changed, so an unknown id costs a
 * few stat calls however many sessions there are. Files are never parsed for a lookup (only a header line
 * for a foreign file name). Pruning walks every session file, so its walk does not hold the event loop.
 */
import { CodedError } from "../../shared/errors.js";
import { isDirectory } from "../../shared/path-kind.js";
import { NotRegularFileError, openRegularFile, openRegularFileSync } from "../../shared/regular-file.js";
import { closeSync, existsSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import { type FileHandle, lstat, readdir, unlink } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import type { SessionCatalog, SessionFileRef, SessionSummary, StaleSessionFile } from "../types.js";

/**
 * File systems stamp changes with a coarse clock (a few milliseconds): a folder changed this recently may
 * change again without its time moving, so it is listed again on the next lookup.
 */
const SETTLED_AFTER_NS = 1_000_000_000n;

/** pi's project folders: the cwd encoded between double dashes (see projectFolderName). */
const PROJECT_FOLDER = /^--.*--$/;

/** One project folder as last listed: its change time and its session files by name. */
interface IndexedFolder {
	changed: bigint;
	files: Map<string, { id: string; path: string }>;
}

/** How the catalog reads folders; tests count the listings. */
export interface FolderReader {
	/** The folder's last change, in nanoseconds (-1 when it cannot be read). */
	changed(dir: string): bigint;
	/** The names in the folder ([] when it cannot be read). */
	list(dir: string): string[];
}

export const REAL_FOLDERS: FolderReader = { changed: changeTime, list: safeReaddir };

export class PiSessionCatalog implements SessionCatalog {
	private readonly folders = new Map<string, IndexedFolder>();
	private rootChanged = -1n;

	constructor(
		private readonly sessionsDir: string,
		private readonly reader: FolderReader = REAL_FOLDERS,
		/** Told of a `.jsonl` entry skipped because it is not a regular file (once per listing of its folder). */
		private readonly warn: (line: string) => void = () => {},
	) {}

	/** Every recorded session file (unsorted; see newestFor for recency). */
	files(): Array<{ id: string; path: string }> {
		this.refresh();
		return [...this.folders.values()].flatMap((folder) => [...folder.files.values()]);
	}

	/** The newest recorded session whose folder belongs to `cwd`, if any (for --continue). */
	newestFor(cwd: string): SessionFileRef | undefined {
		this.refresh();
		const folder = this.folders.get(join(this.sessionsDir, projectFolderName(cwd)));
		const refs = [...(folder?.files.values() ?? [])].map((f) => ({ ...f, modifiedMs: safeMtime(f.path) }));
		return refs.sort((a, b) => b.modifiedMs - a.modifiedMs)[0];
	}

	/** The session file with exactly this id, if recorded. */
	byId(id: string): SessionFileRef | undefined {
		const hit = this.files().find((f) => f.id === id);
		return hit && { ...hit, modifiedMs: safeMtime(hit.path) };
	}

	/**
	 * Resolves what a user typed: a path to a session file, a full id, or an unambiguous id prefix. A path must
	 * lie in the sessions folder unless `anywhere` (the operator's own command line). Throws an error that says
	 * what was not found, which sessions a prefix matched, or that a path is outside the sessions folder.
	 */
	resolve(reference: string, baseDir: string, options: { anywhere?: boolean } = {}): SessionFileRef {
		const trimmed = reference.trim();
		if (!trimmed) throw new CodedError("invalid_command", "Session reference is empty: give an id, an id prefix or a path");
		if (looksLikePath(trimmed)) {
			const path = isAbsolute(trimmed) ? trimmed : resolve(baseDir, trimmed);
			if (!existsSync(path) || !statSync(path).isFile()) throw new CodedError("not_found", `No session file at ${path}`);
			if (!options.anywhere && !this.holds(path)) {
				throw new CodedError("forbidden", `${path} is outside the sessions folder ${this.sessionsDir}: open sessions there by path, id or id prefix`);
			}
			const id = idFromHeader(path);
			if (!id) throw new CodedError("invalid_command", `${path} is not a session file (no session header, or not a regular file)`);
			return { id, path, modifiedMs: safeMtime(path) };
		}
		const files = this.files();
		const exact = files.find((f) => f.id === trimmed);
		if (exact) return { ...exact, modifiedMs: safeMtime(exact.path) };
		const matches = files.filter((f) => f.id.startsWith(trimmed));
		if (matches.length === 1) return { ...matches[0]!, modifiedMs: safeMtime(matches[0]!.path) };
		if (matches.length === 0) throw new CodedError("unknown_session", `No recorded session matches "${trimmed}"`);
		const sample = matches.slice(0, 5).map((m) => m.id).join(", ");
		throw new CodedError("invalid_command", `Session prefix "${trimmed}" is ambiguous: ${matches.length} sessions match (${sample})`);
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
		const id = await idFromHeaderAsync(path);
		return id === undefined ? undefined : { id, path, modifiedMs: stats.mtimeMs, size: stats.size };
	}

	/** The project folders: every entry of the sessions folder that is a folder. */
	private subdirectories(): string[] {
		return this.reader
			.list(this.sessionsDir)
			.map((name) => join(this.sessionsDir, name))
			.filter((path) => isDirectory(path));
	}

	/** Whether a file's real location (symbolic links resolved) is inside the sessions folder. */
	private holds(path: string): boolean {
		try {
			const root = realpathSync(this.sessionsDir);
			return realpathSync(path).startsWith(root + sep);
		} catch {
			return false;
		}
	}

	/** Brings the index up to date, listing again only the folders whose change time moved. */
	private refresh(): void {
		const rootChanged = this.reader.changed(this.sessionsDir);
		if (rootChanged !== this.rootChanged) {
			this.rootChanged = settled(rootChanged);
			const present = new Set(this.subdirectories());
			for (const dir of this.folders.keys()) if (!present.has(dir)) this.folders.delete(dir);
			for (const dir of present) if (!this.folders.has(dir)) this.folders.set(dir, { changed: -1n, files: new Map() });
		}
		for (const [dir, folder] of this.folders) {
			const changed = this.reader.changed(dir);
			if (changed === folder.changed) continue;
			folder.changed = settled(changed);
			const names = new Set(this.reader.list(dir).filter((name) => name.endsWith(".jsonl")));
			for (const name of folder.files.keys()) if (!names.has(name)) folder.files.delete(name);
			for (const name of names) {
				if (folder.files.has(name)) continue;
				const path = join(dir, name);
				const id = idFromFileName(name) ?? idFromHeader(path, this.warn);
				if (id) folder.files.set(name, { id, path });
			}
		}
	}

	/** Summaries of this project's sessions, or of all projects'. Parses the files (pi's listing). */
	async list(scope: "project" | "all", cwd: string): Promise<Omit<SessionSummary, "loaded" | "primary">[]> {
		const infos = scope === "all" ? await SessionManager.listAll() : await SessionManager.list(cwd);
		return infos.map((info) => ({
			sessionId: info.id,
			path: info.path,
			cwd: info.cwd,
			name: info.name,
			created: info.created.toISOString(),
			modified: info.modified.toISOString(),
			messageCount: info.messageCount,
			// pi's placeholder for a session without a user message (one holding only a plan or a goal) is no title.
			firstMessage: info.firstMessage === "(no messages)" ? "" : info.firstMessage,
			parentSession: info.parentSessionPath,
		}));
	}
}

/** pi's folder name for a project: the cwd with separators replaced, wrapped in dashes. */
function projectFolderName(cwd: string): string {
	return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

function looksLikePath(reference: string): boolean {
	return reference.includes("/") || reference.includes("\\") || reference.endsWith(".jsonl");
}

/** pi names files `<timestamp>_<id>.jsonl`; the timestamp has no underscore. */
function idFromFileName(name: string): string | undefined {
	const underscore = name.indexOf("_");
	if (underscore < 0) return undefined;
	const id = name.slice(underscore + 1, -".jsonl".length);
	return id.length > 0 ? id : undefined;
}

const HEADER_READ_BYTES = 4096;

/**
 * The session id in the file's header line. The file is opened as a regular file only (a FIFO in the sessions
 * folder is refused at once, never waited on: src/shared/regular-file.ts); `warn` hears of one refused.
 */
function idFromHeader(path: string, warn: (line: string) => void = () => {}): string | undefined {
	let fd: number | undefined;
	try {
		fd = openRegularFileSync(path, "follow");
		const buffer = Buffer.alloc(HEADER_READ_BYTES);
		return headerId(buffer.subarray(0, readSync(fd, buffer, 0, HEADER_READ_BYTES, 0)));
	} catch (error) {
		if (error instanceof NotRegularFileError) warn(`sessions: ${error.message}; it is not listed as a session`);
		return undefined;
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}

/** idFromHeader off the event loop (for the pruning walk over every file). */
async function idFromHeaderAsync(path: string): Promise<string | undefined> {
	let file: FileHandle | undefined;
	try {
		file = await openRegularFile(path, "follow");
		const buffer = Buffer.alloc(HEADER_READ_BYTES);
		const { bytesRead } = await file.read(buffer, 0, HEADER_READ_BYTES, 0);
		return headerId(buffer.subarray(0, bytesRead));
	} catch {
		return undefined;
	} finally {
		await file?.close();
	}
}

/** The session id of a file's first bytes when they start with a session header line. */
function headerId(start: Buffer): string | undefined {
	try {
		const firstLine = start.toString("utf8").replace(/^\uFEFF/, "").split("\n", 1)[0] ?? "";
		const header = JSON.parse(firstLine) as { type?: unknown; id?: unknown };
		return header.type === "session" && typeof header.id === "string" ? header.id : undefined;
	} catch {
		return undefined;
	}
}

/** A folder that is not a symbolic link. */
async function isRealDirectoryAsync(path: string): Promise<boolean> {
	try {
		return (await lstat(path)).isDirectory();
	} catch {
		return false;
	}
}

function safeReaddir(dir: string): string[] {
	try {
		return readdirSync(dir);
	} catch {
		return [];
	}
}

async function readdirQuietly(dir: string): Promise<string[]> {
	try {
		return await readdir(dir);
	} catch {
		return [];
	}
}

/** The change time to remember: -1 (list again next time) while it is too recent to be final. */
function settled(changed: bigint): bigint {
	return BigInt(Date.now()) * 1_000_000n - changed < SETTLED_AFTER_NS ? -1n : changed;
}

/** A folder's last change, in nanoseconds (-1 when it cannot be read). */
function changeTime(path: string): bigint {
	try {
		return statSync(path, { bigint: true }).mtimeNs;
	} catch {
		return -1n;
	}
}

function safeMtime(path: string): number {
	try {
		return statSync(path).mtimeMs;
	} catch {
		return 0;
	}
}
