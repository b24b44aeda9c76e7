/** Reads recorded session files the way a checker must: every line on its own, nothing skipped quietly. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** What one session file holds, line by line. */
export interface SessionFileReport {
	path: string;
	lines: number;
	/** 1-based numbers of the lines that are not a JSON object. */
	unparsable: number[];
	/** False when the file does not end with a line end (a torn last line). */
	endsWithNewline: boolean;
	/** The text of every user message, in file order. */
	userTexts: string[];
}

/** Every file under `dir`, recursively (paths). */
export function filesUnder(dir: string): string[] {
	let names: string[];
	try {
		names = readdirSync(dir);
	} catch {
		return [];
	}
	return names.flatMap((name) => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? filesUnder(path) : [path];
	});
}

/** The text of a pi message's content: a string, or the text parts of an array. */
export function messageText(message: { content?: unknown } | undefined): string {
	const content = message?.content;
	if (typeof content === "string") return content;
	if (Array.isArray(content)) return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
	return "";
}

/** The user texts of a `get_messages` transcript. */
export function userTexts(messages: Array<{ role?: string; content?: unknown }>): string[] {
	return messages.filter((m) => m.role === "user").map((m) => messageText(m));
}

/** Checks one session file: which lines do not parse, and what the user said in it. */
export function readSessionFile(path: string): SessionFileReport {
	const text = readFileSync(path, "utf8");
	const lines = text.split("\n");
	if (lines.at(-1) === "") lines.pop();
	const unparsable: number[] = [];
	const texts: string[] = [];
	for (const [index, line] of lines.entries()) {
		let entry: any;
		try {
			entry = JSON.parse(line);
		} catch {
			unparsable.push(index + 1);
			continue;
		}
		if (typeof entry !== "object" || entry === null || Array.isArray(entry)) unparsable.push(index + 1);
		else if (entry.type === "message" && entry.message?.role === "user") texts.push(messageText(entry.message));
	}
	return { path, lines: lines.length, unparsable, endsWithNewline: text.length === 0 || text.endsWith("\n"), userTexts: texts };
}

/** Every `.jsonl` session file under `<agentDir>/sessions`. */
export function readSessionFiles(agentDir: string): SessionFileReport[] {
	return filesUnder(join(agentDir, "sessions"))
		.filter((path) => path.endsWith(".jsonl"))
		.map(readSessionFile);
}
