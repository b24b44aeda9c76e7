/**
 * Reads one session file line by line off a stream (never whole, never on the caller's thread at once) for a
 * list's summary or a search's first hit. A line that is not JSON is skipped, as pi's own listing does.
 *
 * The summary counts the messages a user sees: user and assistant messages, not tool results, bash runs,
 * custom (hidden or feature) messages or other entries (pi's listing counted every message entry).
 */
import { open, stat } from "node:fs/promises";
import { basename } from "node:path";
import type { SessionOriginEntry, SessionSummary } from "../types.js";
import { BranchGoal } from "./branch-goal.js";
import { boundedLines, fileChunks } from "./bounded-lines.js";
import { originOf } from "./session-origin.js";

export type ScannedSummary = Omit<SessionSummary, "loaded" | "primary" | "recorded">;

/** Characters of context either side of a search hit in its snippet. */
export const SNIPPET_CONTEXT_CHARS = 60;

interface Entry {
	type?: unknown;
	id?: unknown;
	parentId?: unknown;
	cwd?: unknown;
	timestamp?: unknown;
	parentSession?: unknown;
	name?: unknown;
	customType?: unknown;
	data?: unknown;
	message?: { role?: unknown; content?: unknown; timestamp?: unknown };
}

/**
 * Files up to this size are read whole (one read on the thread pool, then split): most sessions are small, and
 * a stream's buffers and line reader for each of thousands of small files cost more in garbage collection
 * (measured: a second of it per 5,000 files) than the reading. Larger files are streamed, so none is held whole,
 * and neither is a long line (a message with large images): each line is held within SESSION_LINE_BOUNDS
 * (bounded-lines.ts: past 2 MiB, its strings are cut, so image data is not read into memory).
 */
export const WHOLE_READ_MAX_BYTES = 256 * 1024;

/** The lines of a file: read whole when small, else streamed, each line bounded. */
async function* lines(path: string): AsyncGenerator<string> {
	const handle = await open(path, "r");
	try {
		const { size } = await handle.stat();
		if (size <= WHOLE_READ_MAX_BYTES) {
			const text = await handle.readFile("utf8");
			for (let at = 0; at < text.length; ) {
				const end = text.indexOf("\n", at);
				yield text.slice(at, end < 0 ? text.length : end);
				at = end < 0 ? text.length : end + 1;
			}
			return;
		}
		yield* boundedLines(fileChunks(handle));
	} finally {
		await handle.close();
	}
}

function parse(line: string): Entry | undefined {
	if (!line.trim()) return undefined;
	try {
		const value = JSON.parse(line) as unknown;
		return value && typeof value === "object" ? (value as Entry) : undefined;
	} catch {
		return undefined;
	}
}

/** The text of a user or assistant message (its text blocks joined), else undefined. */
export function visibleText(entry: Entry): string | undefined {
	if (entry.type !== "message") return undefined;
	const message = entry.message;
	if (!message || (message.role !== "user" && message.role !== "assistant") || !("content" in message)) return undefined;
	const { content } = message;
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.filter((b): b is { type: "text"; text: string } => !!b && b.type === "text" && typeof b.text === "string")
		.map((b) => b.text)
		.join(" ");
}

/** pi names files `<timestamp>_<id>.jsonl`: the id of the session a fork names by its file. */
export function idOfSessionFile(path: string): string | undefined {
	const name = basename(path);
	const underscore = name.indexOf("_");
	if (underscore < 0 || !name.endsWith(".jsonl")) return undefined;
	return name.slice(underscore + 1, -".jsonl".length) || undefined;
}

/** A file's summary; undefined when it is not a session file (no header) or cannot be read. */
export async function summarize(path: string): Promise<ScannedSummary | undefined> {
	let header: Entry | undefined;
	let name: string | undefined;
	let firstMessage = "";
	let messageCount = 0;
	let lastActivity = 0;
	let origin: SessionOriginEntry | undefined;
	const branchGoal = new BranchGoal();
	try {
		for await (const line of lines(path)) {
			const entry = parse(line);
			if (!entry) continue;
			if (!header) {
				if (entry.type !== "session" || typeof entry.id !== "string") return undefined;
				header = entry;
				continue;
			}
			if (entry.type === "session_info") name = typeof entry.name === "string" ? entry.name.trim() || undefined : undefined;
			origin ??= originOf(entry, header.id as string);
			branchGoal.add(entry);
			const text = visibleText(entry);
			if (text === undefined) continue;
			messageCount++;
			if (!firstMessage && entry.message!.role === "user") firstMessage = text;
			lastActivity = Math.max(lastActivity, activityOf(entry));
		}
		if (!header) return undefined;
		const headerTime = typeof header.timestamp === "string" ? Date.parse(header.timestamp) : NaN;
		const modified = lastActivity > 0 ? lastActivity : Number.isNaN(headerTime) ? (await stat(path)).mtimeMs : headerTime;
		const parentSession = typeof header.parentSession === "string" ? header.parentSession : undefined;
		const parentSessionId = origin?.parentSessionId ?? (parentSession ? idOfSessionFile(parentSession) : undefined);
		const goal = branchGoal.goal();
		return {
			sessionId: header.id as string,
			path,
			cwd: typeof header.cwd === "string" ? header.cwd : "",
			name,
			created: new Date(Number.isNaN(headerTime) ? modified : headerTime).toISOString(),
			modified: new Date(modified).toISOString(),
			messageCount,
			firstMessage,
			parentSession,
			kind: origin?.kind ?? (parentSession ? "fork" : "user"),
			...(parentSessionId ? { parentSessionId } : {}),
			...(origin?.ownerId ? { ownerId: origin.ownerId } : {}),
			...(goal ? { goal } : {}),
		};
	} catch {
		return undefined; // gone or unreadable meanwhile: not listed
	}
}

/** When a message was sent: its own timestamp, else its entry's. */
function activityOf(entry: Entry): number {
	const own = entry.message?.timestamp;
	if (typeof own === "number") return own;
	return typeof entry.timestamp === "string" ? Date.parse(entry.timestamp) || 0 : 0;
}

/**
 * The first user-visible message of the file whose text contains `needle` (lower case), as a snippet. Lines are
 * parsed only when their raw text could hold the needle: JSON leaves every character as it is except quotes,
 * backslashes and control characters, so for a needle without those a line that does not contain it (in lower
 * case) cannot hold it in a message either.
 */
export async function firstHit(path: string, needle: string, skipFirstUserMessage: boolean): Promise<string | undefined> {
	const rawCheck = !/["\\\u0000-\u001f]/.test(needle);
	let skipping = skipFirstUserMessage;
	try {
		for await (const line of lines(path)) {
			if (rawCheck && !skipping && !line.toLowerCase().includes(needle)) continue;
			const entry = parse(line);
			if (!entry) continue;
			const text = visibleText(entry);
			if (text === undefined) continue;
			if (skipping && entry.message!.role === "user") {
				skipping = false; // the title: already looked at
				continue;
			}
			const snippet = snippetOf(text, needle);
			if (snippet !== undefined) return snippet;
		}
	} catch {
		return undefined;
	}
	return undefined;
}

/** A short one-line excerpt around the first occurrence of `needle` (lower case) in `text`, else undefined. */
export function snippetOf(text: string, needle: string): string | undefined {
	const at = text.toLowerCase().indexOf(needle);
	if (at < 0) return undefined;
	const start = Math.max(0, at - SNIPPET_CONTEXT_CHARS);
	const end = Math.min(text.length, at + needle.length + SNIPPET_CONTEXT_CHARS);
	const body = text.slice(start, end).replace(/\s+/g, " ");
	return `${start > 0 ? "…" : ""}${body}${end < text.length ? "…" : ""}`;
}
