/**
 * What a file holds now, as a short token: `changes_get` hands it out with each file and `changes_revert`
 * compares it again before touching the file, so a file changed since the user looked is refused rather than
 * reverted blind. Content is hashed (same size and time but other bytes still differs); past
 * HASHED_BYTES_LIMIT the size and the modification time in nanoseconds stand for it.
 */
import { createHash } from "node:crypto";
import { lstat, readlink } from "node:fs/promises";
import { NotRegularFileError, openRegularFile } from "../../shared/regular-file.js";

/** Files up to this size are hashed whole. */
export const HASHED_BYTES_LIMIT = 8 * 1024 * 1024;

export const ABSENT_TOKEN = "absent";

export async function fileToken(path: string): Promise<string> {
	let stats;
	try {
		stats = await lstat(path, { bigint: true });
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") return ABSENT_TOKEN;
		throw error;
	}
	if (stats.isSymbolicLink()) return `link:${createHash("sha256").update(await readlink(path)).digest("hex").slice(0, 32)}`;
	if (stats.isDirectory()) return "directory";
	if (!stats.isFile()) return `other:${stats.mode}`;
	if (stats.size > BigInt(HASHED_BYTES_LIMIT)) return `size:${stats.size}:mtime:${stats.mtimeNs}`;
	try {
		const handle = await openRegularFile(path, "refuse");
		try {
			// Chunk by chunk: the event loop takes other work between chunks of a large file.
			const hash = createHash("sha256");
			for await (const chunk of handle.createReadStream({ autoClose: false, highWaterMark: 256 * 1024 })) hash.update(chunk as Buffer);
			return `sha256:${hash.digest("hex").slice(0, 32)}`;
		} finally {
			await handle.close();
		}
	} catch (error) {
		if (error instanceof NotRegularFileError) return `other:${error.found}`;
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT") return ABSENT_TOKEN;
		throw error;
	}
}
