/**
 * One settings file (`settings.json`, `trust.json`): read whole, changed key by key, written atomically. Keys
 * Skiff does not know and other sections are kept; the file is re-serialized (two-space JSON), so only its
 * formatting may change. A file that does not parse is reported with its position and never overwritten, and
 * a write is refused when the file changed since it was read (a stale draft).
 */
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { writeFileAtomically } from "../shared/atomic-write.js";
import { CodedError } from "../shared/errors.js";
import { NotRegularFileError, readRegularFileSync } from "../shared/regular-file.js";

/** A JSON object as read from a file. */
export type JsonRecord = Record<string, unknown>;

/** What a file held when it was read. */
export interface FileSnapshot {
	readonly path: string;
	readonly exists: boolean;
	/** The parsed object (empty when the file does not exist). */
	readonly data: JsonRecord;
	/** The content's fingerprint, insensitive to formatting: a change of any value, key or order changes it. */
	readonly hash: string;
}

/** A new file is private to its owner: settings may hold a literal secret a user wrote by hand. */
const NEW_FILE_MODE = 0o600;

/**
 * Reads and parses a settings file; a missing file is an empty object. Throws `io_error` naming the file. A
 * symbolic link is followed (a settings file may live with the user's dotfiles), but only a regular file is
 * read: a FIFO or a device in its place is refused at once, never waited on (src/shared/regular-file.ts).
 */
export function readSettingsFile(path: string): FileSnapshot {
	let text: string;
	try {
		text = readRegularFileSync(path, "follow");
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT") return { path, exists: false, data: {}, hash: fingerprint(undefined) };
		if (error instanceof NotRegularFileError) throw new CodedError("io_error", `${error.message}: settings are read only from a regular file`);
		throw new CodedError("io_error", `${path} cannot be read (${code ?? (error as Error).message})`);
	}
	const data = parseObject(path, text);
	return { path, exists: true, data, hash: fingerprint(data) };
}

/**
 * The JSON object in `text`. A syntax error names the file, line and column, but never quotes the text (it
 * may hold a secret).
 */
function parseObject(path: string, text: string): JsonRecord {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		const position = /at position (\d+)/.exec((error as Error).message);
		const { line, column } = lineAndColumn(text, position ? Number(position[1]) : text.length);
		throw new CodedError(
			"io_error",
			`${path} is not valid JSON (line ${line}, column ${column}): fix it by hand; it is never overwritten while it cannot be read`,
		);
	}
	if (!isRecord(value)) throw new CodedError("io_error", `${path} must hold a JSON object`);
	return value;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
	const before = text.slice(0, offset).split("\n");
	return { line: before.length, column: before.at(-1)!.length + 1 };
}

function fingerprint(data: JsonRecord | undefined): string {
	return createHash("sha256")
		.update(data === undefined ? "" : JSON.stringify(data))
		.digest("hex");
}

export function isRecord(value: unknown): value is JsonRecord {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value at a dotted key (undefined when unset or when a parent is not an object). */
export function valueAt(data: JsonRecord, key: string): unknown {
	let current: unknown = data;
	for (const part of key.split(".")) {
		if (!isRecord(current) || !Object.hasOwn(current, part)) return undefined;
		current = current[part];
	}
	return current;
}

/** The first parent of a dotted key that is present but not an object (its value cannot be read or set), if any. */
export function blockedParent(data: JsonRecord, key: string): string | undefined {
	const parts = key.split(".");
	let current: unknown = data;
	for (let i = 0; i < parts.length - 1; i++) {
		if (!isRecord(current) || !Object.hasOwn(current, parts[i]!)) return undefined;
		current = current[parts[i]!];
		if (!isRecord(current)) return parts.slice(0, i + 1).join(".");
	}
	return undefined;
}

/**
 * A copy of `data` with the key set (or removed when `value` is undefined; a parent object it leaves empty goes
 * too). Everything else, unknown keys included, stays as it was, in its order.
 */
export function withValue(data: JsonRecord, key: string, value: unknown): JsonRecord {
	const copy = structuredClone(data);
	const parts = key.split(".");
	const parents: JsonRecord[] = [copy];
	for (const part of parts.slice(0, -1)) {
		const parent = parents.at(-1)!;
		if (!isRecord(parent[part])) {
			if (value === undefined) return copy;
			parent[part] = {};
		}
		parents.push(parent[part] as JsonRecord);
	}
	const last = parts.at(-1)!;
	if (value !== undefined) {
		parents.at(-1)![last] = value;
		return copy;
	}
	delete parents.at(-1)![last];
	for (let i = parents.length - 1; i > 0 && Object.keys(parents[i]!).length === 0; i--) delete parents[i - 1]![parts[i - 1]!];
	return copy;
}

/**
 * Replaces the file with `data`, atomically (a temporary file in the same folder, flushed, renamed over it, the
 * folder flushed), but only if it still holds what was read (`expectedHash`): otherwise `conflict`, and
 * nothing is written. The check and the rename happen in one synchronous step of this process.
 */
export function writeSettingsFile(path: string, data: JsonRecord, expectedHash: string): void {
	const current = readSettingsFile(path);
	if (current.hash !== expectedHash) {
		throw new CodedError("conflict", `${path} changed since it was read (by hand or by another program): nothing was written; read it again and redo the change`);
	}
	try {
		// An existing file keeps the mode its owner gave it.
		const mode = current.exists ? statSync(path).mode & 0o777 : NEW_FILE_MODE;
		writeFileAtomically(path, `${JSON.stringify(data, null, 2)}\n`, { mode, createFolder: {} });
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		throw new CodedError("io_error", `${path} could not be written (${code ?? (error as Error).message}); it was left as it was`);
	}
}
