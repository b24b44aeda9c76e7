/**
 * The one way the service replaces a whole file: the content goes to a temporary file in the same folder
 * (a rename is only atomic within one file system), is flushed to the disk, and the temporary file is renamed
 * over the target; then the folder is flushed, so the rename itself survives a crash. A reader sees the old
 * file or the new one, never a half-written one, and a failed write leaves the target as it was and no
 * temporary file behind.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { mkdir, open, rename } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Private to the user unless a caller says otherwise: most files hold what a user or an agent wrote. */
export const PRIVATE_FILE_MODE = 0o600;

/** Random bytes in a temporary file's name: writers in one process (same pid) never pick the same name. */
const TEMP_NAME_RANDOM_BYTES = 6;

/** How a whole file is written. */
export interface AtomicWriteOptions {
	/** Permission bits of the new file (the process umask applies); {@link PRIVATE_FILE_MODE} by default. */
	readonly mode?: number;
	/** Creates the target's folder (and its parents) first, with this mode when given; by default it must exist. */
	readonly createFolder?: { readonly mode?: number };
	/** Never replaces an existing file: throws {@link FileExistsError} instead, and nothing is written. */
	readonly exclusive?: boolean;
}

/** An exclusive write found the target already there (`code` is `EEXIST`, like the system's error). */
export class FileExistsError extends Error {
	readonly code = "EEXIST";

	constructor(readonly path: string) {
		super(`${path} already exists`);
		this.name = "FileExistsError";
	}
}

/**
 * Replaces (or creates) `path` with `content`, atomically and durably. Throws the system's error (with its
 * `code`: ENOSPC, EROFS, EACCES, ...) when the write fails; the target is then as it was and the temporary
 * file is gone. A folder that cannot be flushed (some file systems refuse) does not fail the write: the
 * rename has happened.
 */
export function writeFileAtomically(path: string, content: string, options: AtomicWriteOptions = {}): void {
	const folder = dirname(path);
	const temp = tempNameFor(path);
	let claimed = false;
	try {
		if (options.createFolder) mkdirSync(folder, { recursive: true, mode: options.createFolder.mode });
		writeDurably(temp, content, options.mode ?? PRIVATE_FILE_MODE);
		if (options.exclusive) {
			claimName(path, options.mode ?? PRIVATE_FILE_MODE);
			claimed = true;
		}
		renameSync(temp, path);
	} catch (error) {
		removeQuietly(temp);
		if (claimed) removeQuietly(path); // the empty file that held the name: the target did not exist before
		throw error;
	}
	syncFolder(folder);
}

/**
 * The same write without holding the event loop, for files that can be large (a memory store of megabytes):
 * the writing and flushing run on the thread pool. Not exclusive: its callers serialize writers with a lock.
 */
export async function writeFileAtomicallyAsync(path: string, content: string, options: Omit<AtomicWriteOptions, "exclusive"> = {}): Promise<void> {
	const folder = dirname(path);
	const temp = tempNameFor(path);
	try {
		if (options.createFolder) await mkdir(folder, { recursive: true, mode: options.createFolder.mode });
		const handle = await open(temp, "wx", options.mode ?? PRIVATE_FILE_MODE);
		try {
			await handle.writeFile(content, "utf8");
			await handle.sync();
		} finally {
			await handle.close();
		}
		await rename(temp, path);
	} catch (error) {
		removeQuietly(temp);
		throw error;
	}
	await syncFolderAsync(folder);
}

/** A temporary name beside `path`, hidden, unique to this process and this write (for every whole-file write). */
export function tempNameFor(path: string): string {
	return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(TEMP_NAME_RANDOM_BYTES).toString("hex")}.tmp`);
}

/** Writes a new file (never an existing one) whole and flushes it to the disk. */
function writeDurably(path: string, content: string, mode: number): void {
	const fd = openSync(path, "wx", mode);
	try {
		const bytes = Buffer.from(content, "utf8");
		// A write may stop short (a disk filling up); the next one then throws with the reason.
		let offset = 0;
		while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
		fsyncSync(fd);
	} finally {
		closeSync(fd);
	}
}

/**
 * Creates `path` empty, failing when it exists: two exclusive writers cannot both get past this (a rename
 * alone would let the second replace the first's file).
 */
function claimName(path: string, mode: number): void {
	try {
		closeSync(openSync(path, "wx", mode));
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new FileExistsError(path);
		throw error;
	}
}

/** Makes a rename in `folder` durable, where the file system allows it. */
function syncFolder(folder: string): void {
	try {
		const fd = openSync(folder, "r");
		try {
			fsyncSync(fd);
		} finally {
			closeSync(fd);
		}
	} catch {
		// best effort: the rename has happened, only its durability across a crash is less certain
	}
}

/** syncFolder off the event loop: makes a rename in `folder` durable, where the file system allows it. */
export async function syncFolderAsync(folder: string): Promise<void> {
	try {
		const handle = await open(folder, "r");
		try {
			await handle.sync();
		} finally {
			await handle.close();
		}
	} catch {
		// best effort, as in syncFolder
	}
}

/** Removes a file this write created; a failure to do so must not hide the error that made it necessary. */
function removeQuietly(path: string): void {
	try {
		rmSync(path, { force: true });
	} catch {
		// nothing more can be done
	}
}
