/**
 * Keeping a finished persona run's transcript: a copy of its session file under `<persona-root>/sessions/`,
 * which appears whole or not at all (a temporary file, flushed, renamed into place). The copy is streamed
 * asynchronously, so a long transcript does not hold up the event loop; while the service stops it is made at
 * once, since the process exits right after and a copy still under way would be lost. The session file is
 * opened as a regular file only (src/shared/regular-file.ts): a FIFO put in its place is refused, never
 * waited on; and `sessions` must be a real folder (a symbolic link there is not written through).
 */
import { closeSync, constants, lstatSync, readFileSync } from "node:fs";
import { type FileHandle, lstat, mkdir, open, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { syncFolderAsync, tempNameFor } from "../../shared/atomic-write.js";
import { CodedError } from "../../shared/errors.js";
import { NotRegularFileError, openRegularFile, openRegularFileSync } from "../../shared/regular-file.js";
import { writeFileAtomic } from "../atomic-file.js";

/** The archive, like every record of a run, is private to the user. */
const FILE_MODE = 0o600;
const FOLDER_MODE = 0o700;
/** A transcript is copied this many bytes at a time. */
const COPY_CHUNK_BYTES = 256 * 1024;

/**
 * Copies the transcript `source` to `target`; nothing when `source` cannot be read (nothing was recorded).
 * Fails with `io_error` naming `target` when it cannot be written; no temporary file is then left.
 */
export async function archiveTranscript(source: string, target: string, options: { now?: boolean } = {}): Promise<void> {
	if (options.now) return archiveNow(source, target);
	let input;
	try {
		input = await openRegularFile(source, "follow");
	} catch (error) {
		return unreadable(error);
	}
	const folder = dirname(target);
	const temp = tempNameFor(target);
	try {
		await mkdir(folder, { recursive: true, mode: FOLDER_MODE });
		if ((await lstat(folder)).isSymbolicLink()) throw linkedFolder(folder);
		const copy = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, FILE_MODE);
		try {
			await copyAll(input, copy);
			await copy.chmod(FILE_MODE);
			await copy.sync();
		} finally {
			await copy.close();
		}
		await rename(temp, target);
	} catch (error) {
		await rm(temp, { force: true }).catch(() => undefined);
		if (error instanceof CodedError) throw error;
		const code = (error as NodeJS.ErrnoException).code;
		throw new CodedError("io_error", `${target} could not be written (${code ?? (error as Error).message}); it was left as it was`);
	} finally {
		await input.close().catch(() => undefined);
	}
	await syncFolderAsync(folder);
}

/** Copies what `from` holds into `to`, a chunk at a time (each read and write on the thread pool). */
async function copyAll(from: FileHandle, to: FileHandle): Promise<void> {
	const chunk = Buffer.alloc(COPY_CHUNK_BYTES);
	for (let position = 0; ; ) {
		const { bytesRead } = await from.read(chunk, 0, chunk.length, position);
		if (bytesRead === 0) return;
		for (let written = 0; written < bytesRead; ) written += (await to.write(chunk, written, bytesRead - written)).bytesWritten;
		position += bytesRead;
	}
}

/** The copy made at once, on the event loop (the service is stopping). */
function archiveNow(source: string, target: string): void {
	let text: string;
	try {
		const fd = openRegularFileSync(source, "follow");
		try {
			text = readFileSync(fd, "utf8");
		} finally {
			closeSync(fd);
		}
	} catch (error) {
		return unreadable(error);
	}
	const folder = dirname(target);
	let linked = false;
	try {
		linked = lstatSync(folder).isSymbolicLink();
	} catch {
		// not there yet: writeFileAtomic creates it
	}
	if (linked) throw linkedFolder(folder);
	writeFileAtomic(target, text);
}

/** A transcript that cannot be opened: nothing was recorded (no error), or it is not a regular file (an error). */
function unreadable(error: unknown): void {
	if (error instanceof NotRegularFileError) throw new CodedError("io_error", `${error.message}; the run's transcript was not archived`);
}

function linkedFolder(folder: string): CodedError {
	return new CodedError("io_error", `${folder} is a symbolic link (not followed); the run's transcript was not archived`);
}
