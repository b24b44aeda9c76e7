/**
 * Checks a session file before pi opens it. pi skips lines it cannot parse without a word, crashes on an
 * entry without a message, hides history behind a broken `parentId`, and rewrites a file whose first line is
 * not a session header as a new, empty session (losing it). Skiff opens only files that parse cleanly: a
 * damaged one is either repaired (the original kept beside it, the clean version written atomically) or,
 * when it has no usable header, set aside under a new name. Every problem is reported with file and line.
 * An entry that repeats an earlier entry's id is dropped: pi writes all of a session's entries again when it
 * continues a file that holds no assistant reply yet (one Skiff recorded from its first message), and the
 * repeats would branch the conversation.
 */
import { renameSync } from "node:fs";
import { PRIVATE_FILE_MODE, writeFileAtomically } from "../../shared/atomic-write.js";
import { CodedError } from "../../shared/errors.js";
import { NotRegularFileError, readRegularFileSync } from "../../shared/regular-file.js";

/** What the check did to a file. */
export interface SessionFileCheck {
	outcome: "clean" | "repaired" | "set-aside";
	/** One line per problem: `<file>:<line>: <what was wrong and what was done>`. */
	warnings: string[];
	/** Where the original bytes now are (repaired: a copy; set aside: the file itself). */
	keptAs?: string;
}


const BOM = "\uFEFF";

interface Entry {
	type?: unknown;
	id?: unknown;
	parentId?: unknown;
	message?: unknown;
	[key: string]: unknown;
}

/**
 * Checks `path` and repairs or sets it aside when needed. `now` names the kept copy. Only a regular file is
 * read (a FIFO in its place is refused at once, never waited on: src/shared/regular-file.ts).
 */
export function checkSessionFile(path: string, now: () => Date = () => new Date()): SessionFileCheck {
	let raw: string;
	try {
		raw = readRegularFileSync(path, "follow");
	} catch (error) {
		if (error instanceof NotRegularFileError) throw new CodedError("invalid_command", `${error.message}: a session is opened from a regular file only`);
		throw error;
	}
	const warnings: string[] = [];
	let text = raw;
	if (text.startsWith(BOM)) {
		text = text.slice(BOM.length);
		warnings.push(`${path}:1: starts with a byte-order mark; removed`);
	}
	const lines = text.split("\n");
	const tornTail = text.length > 0 && !text.endsWith("\n");
	if (lines.at(-1) === "") lines.pop();

	const header = parseLine(lines[0]);
	if (!header || header.type !== "session" || typeof header.id !== "string") {
		const keptAs = asideName(path, now());
		renameSync(path, keptAs);
		warnings.push(`${path}:1: the first line is not a session header; the file was set aside as ${keptAs}`);
		return { outcome: "set-aside", warnings, keptAs };
	}

	const kept: Entry[] = [header];
	const ids = new Set<string>();
	let previousId: string | null = null;
	for (let index = 1; index < lines.length; index++) {
		const lineNumber = index + 1;
		const line = lines[index]!;
		if (line.trim() === "") continue;
		const entry = parseLine(line);
		const problem = entryProblem(entry);
		if (problem) {
			const torn = tornTail && index === lines.length - 1 ? " (a write that did not finish)" : "";
			warnings.push(`${path}:${lineNumber}: ${problem}${torn}; skipped`);
			continue;
		}
		const valid = entry!;
		if (ids.has(valid.id as string)) {
			warnings.push(`${path}:${lineNumber}: repeats the id of an earlier entry (${String(valid.id)}); skipped`);
			continue;
		}
		if (valid.parentId !== null && !(typeof valid.parentId === "string" && ids.has(valid.parentId))) {
			warnings.push(`${path}:${lineNumber}: parentId ${JSON.stringify(valid.parentId)} names no earlier entry; linked to the entry before it`);
			valid.parentId = previousId;
		}
		ids.add(valid.id as string);
		previousId = valid.id as string;
		kept.push(valid);
	}
	if (tornTail && warnings.every((w) => !w.includes("did not finish"))) {
		warnings.push(`${path}:${lines.length}: the last line has no line end; one was added`);
	}
	if (warnings.length === 0) return { outcome: "clean", warnings };

	const keptAs = asideName(path, now());
	// The copy of the original never replaces a file (exclusive); the clean version replaces the original.
	writeFileAtomically(keptAs, raw, { mode: PRIVATE_FILE_MODE, exclusive: true });
	const clean = `${kept.map((entry) => JSON.stringify(entry)).join("\n")}\n`;
	writeFileAtomically(path, clean, { mode: PRIVATE_FILE_MODE });
	warnings.push(`${path}: repaired; the original is kept as ${keptAs}`);
	return { outcome: "repaired", warnings, keptAs };
}

/** Why an entry cannot be kept, or undefined when it can. */
function entryProblem(entry: Entry | undefined): string | undefined {
	if (!entry) return "not valid JSON";
	if (typeof entry.type !== "string") return "an entry without a type";
	if (entry.type === "session") return "a second session header";
	if (typeof entry.id !== "string" || entry.id.length === 0) return `a ${entry.type} entry without an id`;
	if (entry.type === "message") {
		const message = entry.message as { role?: unknown } | null | undefined;
		if (typeof message !== "object" || message === null) return "a message entry without a message";
		if (typeof message.role !== "string") return "a message without a role";
	}
	return undefined;
}

function parseLine(line: string | undefined): Entry | undefined {
	if (line === undefined) return undefined;
	try {
		const value: unknown = JSON.parse(line);
		return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Entry) : undefined;
	} catch {
		return undefined;
	}
}

/** `<name>.damaged-<time>`: no `.jsonl` ending, so no catalog lists it as a session. */
function asideName(path: string, at: Date): string {
	return `${path}.damaged-${at.toISOString().replace(/[:.]/g, "-")}`;
}
