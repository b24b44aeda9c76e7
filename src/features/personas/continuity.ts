/**
 * A persona's continuity: what its newest runs said, read back from the transcripts archived under
 * `<persona-root>/sessions/`, bounded, and given to its next run as part of its system prompt.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** At most this many messages, and this many bytes of them, newest kept. */
export const CONTINUITY_MAX_MESSAGES = 200;
export const CONTINUITY_MAX_BYTES = 32 * 1024;

/** Archived transcripts, newest first (their names start with the time they were archived). */
export function archivedTranscripts(root: string): string[] {
	try {
		return readdirSync(join(root, "sessions"))
			.filter((name) => name.endsWith(".jsonl"))
			.sort()
			.reverse();
	} catch {
		return [];
	}
}

/** The newest runs' user and assistant text, oldest first, within the bounds; undefined when there is none. */
export function continuityText(root: string): string | undefined {
	const kept: string[] = [];
	let bytes = 0;
	outer: for (const name of archivedTranscripts(root)) {
		let lines: string[];
		try {
			lines = readFileSync(join(root, "sessions", name), "utf8").split("\n");
		} catch {
			continue;
		}
		const messages = lines.flatMap((line) => {
			const text = messageLine(line);
			return text === undefined ? [] : [text];
		});
		for (let i = messages.length - 1; i >= 0; i--) {
			const size = Buffer.byteLength(messages[i]!) + 1;
			if (kept.length >= CONTINUITY_MAX_MESSAGES || bytes + size > CONTINUITY_MAX_BYTES) break outer;
			kept.push(messages[i]!);
			bytes += size;
		}
	}
	if (kept.length === 0) return undefined;
	return `Your previous runs, most recent last (${kept.length} messages):\n${kept.reverse().join("\n")}`;
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
