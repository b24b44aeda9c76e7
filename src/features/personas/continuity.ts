/**
 * A persona's continuity: what its newest runs said, read back from the transcripts archived under
 * `<persona-root>/sessions/`, bounded, and given to its next run as part of its system prompt.
 *
 * Only the end of a transcript is needed, so each is read backwards from its end, in chunks and asynchronously,
 * until the bounds are met: a long transcript costs what its newest messages take, not its whole size.
 */
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { kindOf, NotRegularFileError, openRegularFile } from "../../shared/regular-file.js";

/** At most this many messages, and this many bytes of them, newest kept. */
export const CONTINUITY_MAX_MESSAGES = 200;
export const CONTINUITY_MAX_BYTES = 32 * 1024;
/**
 * At most this many bytes of transcripts are read looking for those messages (tool calls and results fill
 * transcripts too): past it, continuity is what was found so far.
 */
export const CONTINUITY_MAX_SCAN_BYTES = 16 * 1024 * 1024;
/** Transcripts are read backwards this many bytes at a time. */
const CHUNK_BYTES = 64 * 1024;

/** Told, in words, of what under `<root>/sessions/` is skipped: not a regular file (or `sessions` not a real folder). */
export type SkippedEntry = (why: string) => void;

/**
 * Archived transcripts, newest first (their names start with the time they were archived): regular files
 * only, as the folder lists them (a symbolic link, a FIFO or anything else there is skipped and told to
 * `skipped`, never followed or opened); none when `sessions` is itself a symbolic link.
 */
export async function archivedTranscripts(root: string, skipped: SkippedEntry = () => {}): Promise<string[]> {
	const folder = join(root, "sessions");
	try {
		const stats = await lstat(folder);
		if (!stats.isDirectory()) {
			skipped(`${folder} is not a folder (${kindOf(stats)}); its transcripts are skipped`);
			return [];
		}
		const names: string[] = [];
		for (const entry of await readdir(folder, { withFileTypes: true })) {
			if (!entry.name.endsWith(".jsonl")) continue;
			if (entry.isFile()) names.push(entry.name);
			else skipped(`${new NotRegularFileError(join(folder, entry.name), kindOf(entry)).message}; skipped`);
		}
		return names.sort().reverse();
	} catch {
		return [];
	}
}

/** The newest runs' user and assistant text, oldest first, within the bounds; undefined when there is none. */
export async function continuityText(root: string, skipped: SkippedEntry = () => {}): Promise<string | undefined> {
	const kept: string[] = [];
	let bytes = 0;
	const budget = { bytes: CONTINUITY_MAX_SCAN_BYTES };
	outer: for (const name of await archivedTranscripts(root, skipped)) {
		for await (const line of linesFromEnd(join(root, "sessions", name), budget, skipped)) {
			const text = messageLine(line);
			if (text === undefined) continue;
			const size = Buffer.byteLength(text) + 1;
			if (kept.length >= CONTINUITY_MAX_MESSAGES || bytes + size > CONTINUITY_MAX_BYTES) break outer;
			kept.push(text);
			bytes += size;
		}
		if (budget.bytes <= 0) break;
	}
	if (kept.length === 0) return undefined;
	return `Your previous runs, most recent last (${kept.length} messages):\n${kept.reverse().join("\n")}`;
}

/**
 * The lines of a file, last first, read backwards `CHUNK_BYTES` at a time while `budget.bytes` lasts (what is
 * read is taken from it; a line not read whole by then is not given). A file that cannot be read gives none;
 * one that turns out not to be a regular file (replaced since it was listed) is told to `skipped`.
 */
export async function* linesFromEnd(path: string, budget: { bytes: number }, skipped: SkippedEntry = () => {}): AsyncGenerator<string> {
	let handle;
	try {
		handle = await openRegularFile(path, "refuse");
	} catch (error) {
		if (error instanceof NotRegularFileError) skipped(`${error.message}; skipped`);
		return;
	}
	try {
		let position = (await handle.stat()).size;
		/** The end of the line being read, whose start lies before `position`: pieces in file order. */
		let tail: Buffer[] = [];
		while (position > 0) {
			if (budget.bytes <= 0) return;
			const length = Math.min(CHUNK_BYTES, position);
			position -= length;
			budget.bytes -= length;
			const chunk = Buffer.alloc(length);
			for (let filled = 0; filled < length; ) {
				const { bytesRead } = await handle.read(chunk, filled, length - filled, position + filled);
				if (bytesRead === 0) return; // the file shrank meanwhile: what is left is not a whole line
				filled += bytesRead;
			}
			let end = length;
			for (let newline = lastNewline(chunk, end); newline !== -1; newline = lastNewline(chunk, end)) {
				yield Buffer.concat([chunk.subarray(newline + 1, end), ...tail]).toString("utf8");
				tail = [];
				end = newline;
			}
			tail.unshift(chunk.subarray(0, end));
		}
		yield Buffer.concat(tail).toString("utf8");
	} catch {
		// unreadable from here on: the lines given so far stand
	} finally {
		await handle.close().catch(() => undefined);
	}
}

/** The last newline in `chunk` before `end`, or -1. */
function lastNewline(chunk: Buffer, end: number): number {
	return end > 0 ? chunk.lastIndexOf(0x0a, end - 1) : -1;
}

/** `user: …` or `assistant: …` for a recorded message entry with text; undefined for anything else. */
function messageLine(line: string): string | undefined {
	if (!line.trim()) return undefined;
	let entry: { type?: unknown; message?: { role?: unknown; content?: unknown } };
	try {
		entry = JSON.parse(line);
	} catch {
		return undefined;
	}
	const role = entry.message?.role;
	if (entry.type !== "message" || (role !== "user" && role !== "assistant")) return undefined;
	const content = entry.message!.content;
	const text =
		typeof content === "string"
			? content
			: Array.isArray(content)
				? content
						.filter((p) => p?.type === "text" && typeof p.text === "string")
						.map((p) => p.text as string)
						.join("\n")
				: "";
	return text.trim() ? `${role}: ${text.trim()}` : undefined;
}
