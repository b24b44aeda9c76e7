/**
 * Session files as pi writes them (v3 JSONL, in `<agent-dir>/sessions/<project-folder>/<time>_<id>.jsonl`),
 * and the kinds of damage a crash, a disk or an editor leaves in them.
 */
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** An entry of a session file, before damage. */
export type SessionEntry = Record<string, unknown>;

const USAGE = { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 20, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

/** pi's project folder for `cwd` inside the sessions folder. */
export function projectFolder(agentDir: string, cwd: string): string {
	return join(agentDir, "sessions", `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`);
}

/** The user's text of message number `i` of a session written by sessionEntries. */
export const questionText = (id: string, i: number) => `question ${i} of ${id}`;

/** A header and `count` messages (user, assistant, user, …), each the parent of the next. */
export function sessionEntries(id: string, cwd: string, count: number): SessionEntry[] {
	const start = Date.parse("2026-01-01T00:00:00Z");
	const entries: SessionEntry[] = [{ type: "session", version: 3, id, timestamp: new Date(start).toISOString(), cwd }];
	let parentId: string | null = null;
	for (let i = 0; i < count; i++) {
		const timestamp = start + (i + 1) * 1000;
		const message =
			i % 2 === 0
				? { role: "user", content: [{ type: "text", text: questionText(id, i) }], timestamp }
				: {
						role: "assistant",
						content: [{ type: "text", text: `answer ${i} of ${id}` }],
						api: "openai-completions",
						provider: "fake",
						model: "fake-model",
						usage: USAGE,
						stopReason: "stop",
						timestamp,
					};
		const entryId = `${id.slice(0, 4)}${i.toString(16).padStart(4, "0")}`;
		entries.push({ type: "message", id: entryId, parentId, timestamp: new Date(timestamp).toISOString(), message });
		parentId = entryId;
	}
	return entries;
}

/** One JSON line per entry, each ending with a line end. */
export function jsonLines(entries: SessionEntry[]): string {
	return entries.map((entry) => `${JSON.stringify(entry)}\n`).join("");
}

/**
 * Writes `text` as the session file of `id` in cwd's project folder; `modifiedAt` (epoch ms) sets its time,
 * which `--continue` sorts by. Returns the path.
 */
export function writeSessionText(agentDir: string, cwd: string, id: string, text: string, modifiedAt?: number): string {
	const dir = projectFolder(agentDir, cwd);
	mkdirSync(dir, { recursive: true });
	const path = join(dir, `2026-01-01T00-00-00-000Z_${id}.jsonl`);
	writeFileSync(path, text);
	if (modifiedAt !== undefined) utimesSync(path, modifiedAt / 1000, modifiedAt / 1000);
	return path;
}

/** The kinds of damage, each as a function of a clean session's entries, returning the file's text. */
export const DAMAGE = {
	/** A crash in the middle of an append: the last line stops half-way, without a line end. */
	tornLastLine(entries: SessionEntry[]): string {
		const last = JSON.stringify({ type: "message", id: "torn0001", parentId: entries.at(-1)!.id, message: { role: "user" } });
		return jsonLines(entries) + last.slice(0, Math.floor(last.length / 2));
	},
	/** The header is unreadable: the file cannot say which session it is. */
	damagedFirstLine(entries: SessionEntry[]): string {
		return `{"type":"sess\u0000\u0000${jsonLines(entries.slice(1))}`;
	},
	/** Two message entries after the second message: one without `message`, one with `message: null`. */
	missingMessage(entries: SessionEntry[]): string {
		const [header, ...messages] = entries;
		const second = messages[1]!;
		const broken: SessionEntry[] = [
			{ type: "message", id: "nomsg001", parentId: second.id, timestamp: second.timestamp },
			{ type: "message", id: "nullmsg1", parentId: "nomsg001", timestamp: second.timestamp, message: null },
		];
		const rest = messages.slice(2).map((entry, i) => (i === 0 ? { ...entry, parentId: "nullmsg1" } : entry));
		return jsonLines([header!, ...messages.slice(0, 2), ...broken, ...rest]);
	},
	/** The third message names a parent that does not exist, which would hide everything before it. */
	brokenParentId(entries: SessionEntry[]): string {
		return jsonLines(entries.map((entry, i) => (i === 3 ? { ...entry, parentId: "no-such-entry" } : entry)));
	},
	/** An editor saved the file with a UTF-8 byte-order mark. */
	byteOrderMark(entries: SessionEntry[]): string {
		return `\uFEFF${jsonLines(entries)}`;
	},
} as const;

/** The line number (1-based) of the first entry DAMAGE.missingMessage breaks. */
export const MISSING_MESSAGE_LINES = [4, 5];
