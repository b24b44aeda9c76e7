/**
 * Writes many session files in pi's layout, as a long-used machine holds them (for the session search's load
 * test and benchmark): spread over project folders, each a conversation of a few user and assistant messages
 * with some prose, none holding `needle` unless asked.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface ManySessions {
	files: number;
	folders: number;
	/** Messages per file (user and assistant in turn). */
	messages: number;
	/** Written into the last message of every `hitEvery`-th file (none when absent). */
	needle?: string;
	hitEvery?: number;
}

const PROSE = "The quick brown fox jumps over the lazy dog while the build runs and the tests take their time. ";

/** Writes the files (times a day old, so the index takes them as settled) and returns their ids. */
export function writeManySessions(agentDir: string, spec: ManySessions): string[] {
	const sessions = join(agentDir, "sessions");
	const day = new Date(Date.now() - 24 * 60 * 60 * 1000);
	const ids: string[] = [];
	for (let f = 0; f < spec.folders; f++) {
		const cwd = `/home/user/project-${f}`;
		const folder = join(sessions, `--${cwd.slice(1).replaceAll("/", "-")}--`);
		mkdirSync(folder, { recursive: true });
		for (let i = f; i < spec.files; i += spec.folders) {
			const id = randomUUID();
			ids.push(id);
			const start = Date.UTC(2026, 0, 1) + i * 60_000;
			const lines = [JSON.stringify({ type: "session", version: 3, id, timestamp: new Date(start).toISOString(), cwd })];
			let parentId: string | null = null;
			for (let m = 0; m < spec.messages; m++) {
				const last = m === spec.messages - 1;
				const hit = last && spec.needle !== undefined && spec.hitEvery !== undefined && i % spec.hitEvery === 0;
				const text = `${m % 2 === 0 ? "Question" : "Answer"} ${m} of session ${i}. ${PROSE.repeat(3)}${hit ? spec.needle : ""}`;
				const role = m % 2 === 0 ? "user" : "assistant";
				const entryId = `m${m}`;
				lines.push(JSON.stringify({ type: "message", id: entryId, parentId, timestamp: new Date(start + m).toISOString(), message: { role, content: [{ type: "text", text }], timestamp: start + m } }));
				parentId = entryId;
			}
			const path = join(folder, `${new Date(start).toISOString().replace(/[:.]/g, "-")}_${id}.jsonl`);
			writeFileSync(path, `${lines.join("\n")}\n`);
			utimesSync(path, day, day);
		}
		utimesSync(folder, day, day);
	}
	utimesSync(sessions, day, day);
	return ids;
}
