/**
 * The disk reads the session index makes, each in two forms: synchronous (the catalog's synchronous methods,
 * for tools and tests) and asynchronous (every request path: the calls run on the thread pool, so a lookup
 * among thousands of files never holds the event loop). No read throws: what cannot be read is an answer
 * (-1, [], false, undefined), as a folder or file that vanished between two reads is normal.
 */
import { NotRegularFileError, openRegularFile, openRegularFileSync } from "../../shared/regular-file.js";
import { isDirectory } from "../../shared/path-kind.js";
import { closeSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import { type FileHandle, readdir, realpath, stat } from "node:fs/promises";

/** One read per path: the answer for each kind of read. */
export interface DiskAnswers {
	/** A folder's last change in nanoseconds (-1 when it cannot be read). */
	changed: bigint;
	/** A folder's entries ([] when it cannot be read). */
	list: string[];
	/** A folder, or a link to one. */
	directory: boolean;
	/** A regular file, or a link to one. */
	file: boolean;
	/** The session id in a file's header line, if it has one (and is a regular file). */
	header: string | undefined;
	/** A file's last modification, epoch ms (undefined when it cannot be read). */
	modified: number | undefined;
	/** The path with symbolic links resolved (undefined when it cannot be). */
	real: string | undefined;
}

export type DiskRead = keyof DiskAnswers;
export type SyncDisk = { [K in DiskRead]: (path: string) => DiskAnswers[K] };
export type AsyncDisk = { [K in DiskRead]: (path: string) => Promise<DiskAnswers[K]> };

/**
 * How the catalog reads folders. Only listing and change times are given here; tests count the listings
 * (the asynchronous forms default to the disk's).
 */
export interface FolderReader {
	changed(dir: string): bigint;
	list(dir: string): string[];
	changedAsync?(dir: string): Promise<bigint>;
	listAsync?(dir: string): Promise<string[]>;
}

export const REAL_FOLDERS: Required<FolderReader> = {
	changed: (dir) => quietly(() => statSync(dir, { bigint: true }).mtimeNs, -1n),
	list: (dir) => quietly(() => readdirSync(dir), []),
	changedAsync: (dir) => quietlyAsync(async () => (await stat(dir, { bigint: true })).mtimeNs, -1n),
	listAsync: (dir) => quietlyAsync(() => readdir(dir), []),
};

/** The disk in both forms, with the folders read through `reader`; `warn` hears of a `.jsonl` that is no regular file. */
export function sessionDisk(reader: FolderReader, warn: (line: string) => void): { sync: SyncDisk; async: AsyncDisk } {
	const refused = (error: unknown) => {
		if (error instanceof NotRegularFileError) warn(`sessions: ${error.message}; it is not listed as a session`);
		return undefined;
	};
	return {
		sync: {
			changed: (dir) => reader.changed(dir),
			list: (dir) => reader.list(dir),
			directory: isDirectory,
			file: (path) => quietly(() => statSync(path).isFile(), false),
			header: (path) => {
				try {
					return headerIdSync(path);
				} catch (error) {
					return refused(error);
				}
			},
			modified: (path) => quietly(() => statSync(path).mtimeMs, undefined),
			real: (path) => quietly(() => realpathSync(path), undefined),
		},
		async: {
			changed: reader.changedAsync ?? REAL_FOLDERS.changedAsync,
			list: reader.listAsync ?? REAL_FOLDERS.listAsync,
			directory: (path) => quietlyAsync(async () => (await stat(path)).isDirectory(), false),
			file: (path) => quietlyAsync(async () => (await stat(path)).isFile(), false),
			header: (path) => headerId(path).catch(refused),
			modified: (path) => quietlyAsync(async () => (await stat(path)).mtimeMs, undefined),
			real: (path) => quietlyAsync(() => realpath(path), undefined),
		},
	};
}

const HEADER_READ_BYTES = 4096;

/**
 * The session id in the file's header line. The file is opened as a regular file only (a FIFO in the sessions
 * folder is refused at once, never waited on: src/shared/regular-file.ts); throws NotRegularFileError for one.
 */
export function headerIdSync(path: string): string | undefined {
	let fd: number | undefined;
	try {
		fd = openRegularFileSync(path, "follow");
		const buffer = Buffer.alloc(HEADER_READ_BYTES);
		return idOfHeader(buffer.subarray(0, readSync(fd, buffer, 0, HEADER_READ_BYTES, 0)));
	} catch (error) {
		if (error instanceof NotRegularFileError) throw error;
		return undefined;
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}

/** headerIdSync off the event loop. */
export async function headerId(path: string): Promise<string | undefined> {
	let file: FileHandle | undefined;
	try {
		file = await openRegularFile(path, "follow");
		const buffer = Buffer.alloc(HEADER_READ_BYTES);
		const { bytesRead } = await file.read(buffer, 0, HEADER_READ_BYTES, 0);
		return idOfHeader(buffer.subarray(0, bytesRead));
	} catch (error) {
		if (error instanceof NotRegularFileError) throw error;
		return undefined;
	} finally {
		await file?.close();
	}
}

/** The session id of a file's first bytes when they start with a session header line. */
function idOfHeader(start: Buffer): string | undefined {
	try {
		const firstLine = start.toString("utf8").replace(/^\uFEFF/, "").split("\n", 1)[0] ?? "";
		const header = JSON.parse(firstLine) as { type?: unknown; id?: unknown };
		return header.type === "session" && typeof header.id === "string" ? header.id : undefined;
	} catch {
		return undefined;
	}
}

function quietly<T>(read: () => T, otherwise: T): T {
	try {
		return read();
	} catch {
		return otherwise;
	}
}

async function quietlyAsync<T>(read: () => Promise<T>, otherwise: T): Promise<T> {
	try {
		return await read();
	} catch {
		return otherwise;
	}
}
