/**
 * Opening a file in a folder a user or an agent can write (personas, agent definitions, memory stores,
 * settings, session files, job and workflow records) without being held up by what was put there. Opening a
 * FIFO to read waits for a writer, for ever: opened on the event loop it stops the whole service; opened on
 * the thread pool it takes one of its four threads for good, and four such opens stop every file operation.
 * A device can block the same way, or never end.
 *
 * So such files are opened with O_NONBLOCK (a FIFO then opens at once) and O_NOCTTY, and with O_NOFOLLOW where
 * symbolic links are refused (the link fails to open instead of being followed); then the open handle is
 * examined (fstat) and anything but a regular file is closed and refused with {@link NotRegularFileError}.
 * Examining the path before opening it (lstat, then open) would leave a moment in which the entry can be
 * replaced; the handle is the file that will be read. O_NONBLOCK changes nothing for a regular file.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";

/** Whether a symbolic link at the path itself is followed (`follow`) or refused (`refuse`). */
export type LinkRule = "follow" | "refuse";

/** The file at the path was not a regular file: what it was, in words, for messages. */
export class NotRegularFileError extends Error {
	readonly code = "ENOTREGULAR";

	constructor(
		readonly path: string,
		/** What was found instead: "a FIFO", "a symbolic link, not followed", "a directory", ... */
		readonly found: string,
	) {
		super(`${path} is not a regular file (${found})`);
		this.name = "NotRegularFileError";
	}
}

/** O_NOFOLLOW and O_NONBLOCK are POSIX; where a platform lacks one, it is left out (0). */
function flags(links: LinkRule): number {
	return constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0) | (links === "refuse" ? (constants.O_NOFOLLOW ?? 0) : 0);
}

/** What a non-regular file (its stats, or its entry in a folder listing) is, in words. */
export function kindOf(stats: Pick<Stats, "isFile" | "isDirectory" | "isFIFO" | "isSocket" | "isCharacterDevice" | "isBlockDevice" | "isSymbolicLink">): string {
	if (stats.isFile()) return "a regular file";
	if (stats.isFIFO()) return "a FIFO";
	if (stats.isDirectory()) return "a directory";
	if (stats.isSocket()) return "a socket";
	if (stats.isCharacterDevice()) return "a character device";
	if (stats.isBlockDevice()) return "a block device";
	if (stats.isSymbolicLink()) return "a symbolic link, not followed";
	return "something other than a file";
}

/** The open's error, with a refused symbolic link (ELOOP under O_NOFOLLOW) said as such. */
function openError(error: unknown, path: string, links: LinkRule): unknown {
	if (links === "refuse" && (error as NodeJS.ErrnoException).code === "ELOOP") return new NotRegularFileError(path, "a symbolic link, not followed");
	return error;
}

/**
 * Opens `path` to read, never waiting on what it is; throws NotRegularFileError for anything but a regular
 * file (and for a symbolic link under `refuse`), else the system's error (ENOENT, EACCES, ...).
 */
export async function openRegularFile(path: string, links: LinkRule): Promise<FileHandle> {
	let handle: FileHandle;
	try {
		handle = await open(path, flags(links));
	} catch (error) {
		throw openError(error, path, links);
	}
	try {
		const stats = await handle.stat();
		if (!stats.isFile()) throw new NotRegularFileError(path, kindOf(stats));
		return handle;
	} catch (error) {
		await handle.close().catch(() => undefined);
		throw error;
	}
}

/** {@link openRegularFile} on the event loop (for the synchronous paths): a file descriptor to close. */
export function openRegularFileSync(path: string, links: LinkRule): number {
	let fd: number;
	try {
		fd = openSync(path, flags(links));
	} catch (error) {
		throw openError(error, path, links);
	}
	try {
		const stats = fstatSync(fd);
		if (!stats.isFile()) throw new NotRegularFileError(path, kindOf(stats));
		return fd;
	} catch (error) {
		closeSync(fd);
		throw error;
	}
}

/** The whole text of a regular file (see {@link openRegularFile}). */
export async function readRegularFile(path: string, links: LinkRule): Promise<string> {
	const handle = await openRegularFile(path, links);
	try {
		return await handle.readFile("utf8");
	} finally {
		await handle.close();
	}
}

/** The whole text of a regular file, read on the event loop (see {@link openRegularFile}). */
export function readRegularFileSync(path: string, links: LinkRule): string {
	const fd = openRegularFileSync(path, links);
	try {
		return readFileSync(fd, "utf8");
	} finally {
		closeSync(fd);
	}
}
