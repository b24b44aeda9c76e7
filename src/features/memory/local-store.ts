/**
 * The local memory store: note entries in one JSONL file per namespace. Every change is a read-modify-write
 * under a cross-process lock, written to a temporary file and renamed over the store, so two processes lose
 * nothing and a crash mid-write leaves the previous file intact.
 *
 * Reads never hold up the event loop for long: the file is read asynchronously, at most
 * {@link MAX_STORE_BYTES} of it (a larger file is refused, not parsed), and what was parsed is kept while the
 * file is unchanged, so the tools and commands that read it again and again do not read it again.
 */
import { randomUUID } from "node:crypto";
import { closeSync, fstatSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { PRIVATE_FILE_MODE, writeFileAtomicallyAsync } from "../../shared/atomic-write.js";
import { redactSecrets } from "../../shared/redact.js";
import { NotRegularFileError, openRegularFile, openRegularFileSync } from "../../shared/regular-file.js";
import { FileCache } from "./file-cache.js";
import { withFileLock } from "./file-lock.js";
import { projectAnchor, projectDigest } from "./project-identity.js";
import { queryMatchers } from "./query-matchers.js";

export const MAX_ENTRY_BYTES = 1024 * 1024;
export const MAX_TAGS = 20;
export const MAX_TAG_CHARS = 64;
export const MAX_ENTRIES = 100;
export const DEFAULT_RECALL_COUNT = 10;
export const MAX_RECALL_COUNT = 50;
/**
 * The largest store file that is read: a larger one is refused with an error naming it and this bound.
 * `learn` keeps the file within it, evicting the oldest entries sooner when large ones fill it.
 */
export const MAX_STORE_BYTES = 16 * 1024 * 1024;

/** Stores parsed lately, by path: an unchanged file is not read again. */
const parsed = new FileCache<StoreFile>({ maxEntries: 32, maxWeight: 4 * MAX_STORE_BYTES });

export interface MemoryEntry {
	id: string;
	content: string;
	tags: string[];
	/** Creation time, ms since the epoch. */
	ts: number;
	/** The session that learned it. */
	session: string;
}

/** The store of an ordinary session: `<agent-dir>/memory/<project digest>/entries.jsonl`. */
export function projectStorePath(agentDir: string, cwd: string): string {
	return join(agentDir, "memory", projectDigest(projectAnchor(cwd)), "entries.jsonl");
}

/** The store of a persona: `<persona-root>/memory/entries.jsonl`. */
export function personaStorePath(personaRoot: string): string {
	return join(personaRoot, "memory", "entries.jsonl");
}

interface StoreFile {
	entries: MemoryEntry[];
	/** Lines that could not be read as entries: kept as they are, never dropped silently. */
	unreadable: string[];
}

export class LocalMemoryStore {
	constructor(
		readonly path: string,
		private readonly now: () => number = Date.now,
	) {}

	/**
	 * Adds an entry (content redacted); the oldest entries beyond the limits (100 entries, and the file within
	 * {@link MAX_STORE_BYTES}) are evicted, never this one.
	 */
	async learn(content: string, tags: string[], session: string): Promise<{ entry: MemoryEntry; total: number }> {
		if (!content.trim()) throw new Error("content is required for memory learn");
		const size = Buffer.byteLength(content, "utf8");
		if (size > MAX_ENTRY_BYTES) throw new Error(`memory entry too large: ${size} bytes exceeds the 1 MiB limit`);
		const entry: MemoryEntry = {
			id: randomUUID().replace(/-/g, ""),
			content: redactSecrets(content),
			tags: sanitizeTags(tags),
			ts: this.now(),
			session: session.replace(/[\u0000-\u001f\u007f]/g, ""),
		};
		return this.change((file) => {
			// The newest others that fit beside it, in number and in bytes; the lines that are not entries stay.
			let room = MAX_STORE_BYTES - file.unreadable.reduce((sum, line) => sum + lineBytes(line), 0) - lineBytes(entryLine(entry));
			if (room < 0) throw new Error(`memory entry does not fit: the store ${this.path} would grow past the ${MAX_STORE_BYTES / MIB} MiB limit`);
			const kept = [entry];
			for (const other of newestFirst(file.entries).slice(0, MAX_ENTRIES - 1)) {
				room -= lineBytes(entryLine(other));
				if (room < 0) break;
				kept.push(other);
			}
			file.entries = newestFirst(kept);
			return { entry, total: file.entries.length };
		});
	}

	/** Entries matching the query (content and tags), best first; `count` is clamped to 1..50. */
	async recall(query: string, count?: number | null): Promise<MemoryEntry[]> {
		if (!query.trim()) throw new Error("query is required for memory recall");
		return this.search(query, clampCount(count));
	}

	/** Entries matching the query (content and tags), best first, at most `limit` (the inspector's search). */
	async search(query: string, limit: number): Promise<MemoryEntry[]> {
		const phrase = query.trim().toLowerCase();
		if (!phrase) return [];
		const normalized = phrase.replace(/\s+/g, " ");
		const { whole, terms } = queryMatchers(normalized);
		const scored = (await this.read()).entries.flatMap((entry) => {
			const haystack = `${entry.content} ${entry.tags.join(" ")}`.toLowerCase().replace(/\s+/g, " ");
			const score = (whole.test(haystack) ? 2 : 0) + terms.filter((t) => t.test(haystack)).length;
			return score > 0 ? [{ entry, score }] : [];
		});
		scored.sort((a, b) => b.score - a.score || b.entry.ts - a.entry.ts || a.entry.id.localeCompare(b.entry.id));
		return scored.slice(0, limit).map((s) => s.entry);
	}

	/** All entries, newest first, optionally only those with this tag (case-insensitive). */
	async list(tag?: string): Promise<MemoryEntry[]> {
		const wanted = tag?.trim().toLowerCase();
		const entries = newestFirst((await this.read()).entries);
		return wanted ? entries.filter((e) => e.tags.some((t) => t.toLowerCase() === wanted)) : entries;
	}

	/** Removes the entry with this id; false when there was none (the file is then left alone). */
	async forget(id: string): Promise<boolean> {
		if (!id.trim()) throw new Error("id is required for memory forget");
		if (!(await this.read()).entries.some((e) => e.id === id)) return false;
		return this.change((file) => {
			const before = file.entries.length;
			file.entries = file.entries.filter((e) => e.id !== id);
			return file.entries.length < before;
		});
	}

	/** Removes the entries with these ids in one write; the file is left alone when none is there. */
	async forgetMany(ids: string[]): Promise<{ forgotten: string[]; missing: string[] }> {
		const wanted = new Set(ids);
		const present = new Set((await this.read()).entries.filter((e) => wanted.has(e.id)).map((e) => e.id));
		if (present.size === 0) return { forgotten: [], missing: [...wanted] };
		const forgotten = await this.change((file) => {
			const gone = [...new Set(file.entries.filter((e) => wanted.has(e.id)).map((e) => e.id))];
			file.entries = file.entries.filter((e) => !wanted.has(e.id));
			return gone;
		});
		const removed = new Set(forgotten);
		return { forgotten, missing: [...wanted].filter((id) => !removed.has(id)) };
	}

	/** Reads the store (a missing file is an empty store); a file unchanged since it was last read is not read again. */
	read(): Promise<StoreFile> {
		return this.load(true);
	}

	/**
	 * Whether the store can be read, told without reading it (for the agents' catalog, which is synchronous): a
	 * missing file can; otherwise a regular file (not a link, never a FIFO waited on: see
	 * src/shared/regular-file.ts) that opens, unchanged since it was read or within the bound.
	 */
	readableNow(): boolean {
		let fd: number;
		try {
			fd = openRegularFileSync(this.path, "refuse");
		} catch (error) {
			return (error as NodeJS.ErrnoException).code === "ENOENT";
		}
		try {
			const stat = fstatSync(fd, { bigint: true });
			return parsed.get(this.path, stat) !== undefined || stat.size <= MAX_STORE_BYTES;
		} finally {
			closeSync(fd);
		}
	}

	/**
	 * The store as it is on disk, read asynchronously through an open handle (so the identity kept with what was
	 * parsed is the very file read); with `cached`, what was parsed of an unchanged file. Always a copy. Only a
	 * regular file is read: a symbolic link or a FIFO in its place is an error naming it, never followed or
	 * waited on.
	 */
	private async load(cached: boolean): Promise<StoreFile> {
		let handle;
		try {
			handle = await openRegularFile(this.path, "refuse");
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === "ENOENT") return { entries: [], unreadable: [] };
			throw cannotRead(error);
		}
		try {
			const stat = await handle.stat({ bigint: true });
			let file = cached ? parsed.get(this.path, stat) : undefined;
			if (!file) {
				if (stat.size > MAX_STORE_BYTES) {
					throw new Error(`memory store is too large to read: ${this.path} holds ${stat.size} bytes, more than the ${MAX_STORE_BYTES / MIB} MiB limit`);
				}
				const text = await handle.readFile("utf8").catch((error: unknown) => {
					throw cannotRead(error);
				});
				file = parsed.set(this.path, stat, parseStore(text), Number(stat.size));
			}
			return { entries: [...file.entries], unreadable: [...file.unreadable] };
		} finally {
			await handle.close().catch(() => undefined);
		}
	}

	private async change<T>(mutate: (file: StoreFile) => T): Promise<T> {
		mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
		return withFileLock(this.path, async () => {
			const file = await this.load(false); // the latest bytes: another process may have written them
			const result = mutate(file);
			const lines = [...file.entries.map(entryLine), ...file.unreadable];
			parsed.delete(this.path);
			// A store may hold megabytes: written and flushed off the event loop (the lock keeps other writers out).
			await writeFileAtomicallyAsync(this.path, lines.length ? `${lines.join("\n")}\n` : "", { mode: PRIVATE_FILE_MODE });
			return result;
		});
	}
}

const MIB = 1024 * 1024;

function cannotRead(error: unknown): Error {
	if (error instanceof NotRegularFileError) return new Error(`memory store cannot be read: ${error.message}`);
	return new Error(`memory store cannot be read: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
}

/** The entries and other lines of a store file's text. */
function parseStore(text: string): StoreFile {
	const file: StoreFile = { entries: [], unreadable: [] };
	for (const line of text.split("\n")) {
		if (!line.trim()) continue;
		const entry = parseEntry(line);
		if (entry) file.entries.push(entry);
		else file.unreadable.push(line);
	}
	return file;
}

/** An entry's line in the file (without its newline). */
function entryLine(entry: MemoryEntry): string {
	const { id, content, tags, ts, session } = entry;
	return JSON.stringify(tags.length ? { id, content, tags, ts, session } : { id, content, ts, session });
}

/** What a line takes in the file, with its newline. */
function lineBytes(line: string): number {
	return Buffer.byteLength(line, "utf8") + 1;
}

function parseEntry(line: string): MemoryEntry | undefined {
	try {
		const value = JSON.parse(line) as Record<string, unknown>;
		if (typeof value.id !== "string" || typeof value.content !== "string") return undefined;
		return {
			id: value.id,
			content: value.content,
			tags: Array.isArray(value.tags) ? value.tags.filter((t): t is string => typeof t === "string") : [],
			ts: typeof value.ts === "number" && Number.isFinite(value.ts) ? value.ts : 0,
			session: typeof value.session === "string" ? value.session : "",
		};
	} catch {
		return undefined;
	}
}

function newestFirst(entries: MemoryEntry[]): MemoryEntry[] {
	return [...entries].sort((a, b) => b.ts - a.ts || a.id.localeCompare(b.id));
}

/** Tags: control characters removed, trimmed, at most 64 characters, unique ignoring case, at most 20. */
export function sanitizeTags(tags: unknown[]): string[] {
	const out: string[] = [];
	const seen = new Set<string>();
	for (const raw of tags) {
		if (typeof raw !== "string") continue;
		const tag = raw.replace(/[\u0000-\u001f\u007f]/g, "").trim();
		if (!tag || [...tag].length > MAX_TAG_CHARS || seen.has(tag.toLowerCase())) continue;
		seen.add(tag.toLowerCase());
		out.push(tag);
		if (out.length === MAX_TAGS) break;
	}
	return out;
}

/** Recall count: absent or null means 10; otherwise truncated and clamped to 1..50. */
export function clampCount(count: number | null | undefined): number {
	if (count === undefined || count === null) return DEFAULT_RECALL_COUNT;
	if (!Number.isFinite(count)) throw new Error("limit must be a finite number");
	return Math.min(MAX_RECALL_COUNT, Math.max(1, Math.trunc(count)));
}
