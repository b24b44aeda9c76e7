/**
 * What a file holds now, as a short token: `changes_get` hands it out with each file and `changes_revert`
 * compares it again before touching the file, so a file changed since the user looked is refused rather than
 * reverted blind. Content is hashed (same size and time but other bytes still differs); past
 * HASHED_BYTES_LIMIT the size and the modification time in nanoseconds stand for it. The same read counts an
 * untracked file's lines (it has no numstat): one open per file, as a listing examines up to a thousand.
 */
import { createHash } from "node:crypto";
import { lstat, readlink } from "node:fs/promises";
import { NotRegularFileError, openRegularFile } from "../../shared/regular-file.js";
import { BINARY_SNIFF_BYTES } from "./line-count.js";

/** Files up to this size are hashed whole (and, when asked, their lines counted). */
export const HASHED_BYTES_LIMIT = 8 * 1024 * 1024;
/** Up to this size a file is read in one go; larger ones chunk by chunk, so the event loop takes other work between. */
const ONE_READ_BYTES = 1024 * 1024;

export const ABSENT_TOKEN = "absent";

export interface Examined {
	token: string;
	/** With `countLines`: its lines (0 for binary), whether it is binary, or why they could not be counted. */
	lines?: number;
	binary?: boolean;
	note?: string;
}

export async function fileToken(path: string): Promise<string> {
	return (await examineFile(path, false)).token;
}

/** The file's token, and with `countLines` its lines as a text file (a last line without a newline counts). */
export async function examineFile(path: string, countLines: boolean): Promise<Examined> {
	let stats;
	try {
		stats = await lstat(path, { bigint: true });
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") return { token: ABSENT_TOKEN };
		throw error;
	}
	const unreadable = (token: string, why: string): Examined => (countLines ? { token, lines: 0, binary: false, note: why } : { token });
	if (stats.isSymbolicLink()) return unreadable(`link:${createHash("sha256").update(await readlink(path)).digest("hex").slice(0, 32)}`, "a symbolic link, not followed");
	if (stats.isDirectory()) return unreadable("directory", "a directory");
	if (!stats.isFile()) return unreadable(`other:${stats.mode}`, "not a regular file");
	if (stats.size > BigInt(HASHED_BYTES_LIMIT)) return unreadable(`size:${stats.size}:mtime:${stats.mtimeNs}`, `${stats.size} bytes: too large to count its lines`);
	let handle;
	try {
		handle = await openRegularFile(path, "refuse");
	} catch (error) {
		if (error instanceof NotRegularFileError) return unreadable(`other:${error.found}`, `not a regular file (${error.found})`);
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT") return { token: ABSENT_TOKEN };
		throw error;
	}
	try {
		const hash = createHash("sha256");
		let newlines = 0;
		let last = -1;
		let binary = false;
		let seen = 0;
		const take = (chunk: Buffer) => {
			hash.update(chunk);
			if (!countLines || chunk.length === 0) return;
			if (seen < BINARY_SNIFF_BYTES && chunk.subarray(0, BINARY_SNIFF_BYTES - seen).includes(0)) binary = true;
			seen += chunk.length;
			for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) newlines++;
			last = chunk[chunk.length - 1]!;
		};
		if (stats.size <= BigInt(ONE_READ_BYTES)) take(await handle.readFile());
		else for await (const chunk of handle.createReadStream({ autoClose: false, highWaterMark: 256 * 1024 })) take(chunk as Buffer);
		const token = `sha256:${hash.digest("hex").slice(0, 32)}`;
		if (!countLines) return { token };
		if (binary) return { token, lines: 0, binary: true };
		return { token, lines: newlines + (last !== -1 && last !== 10 ? 1 : 0), binary: false };
	} finally {
		await handle.close();
	}
}
