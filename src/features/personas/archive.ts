/**
 * Keeping a finished persona run's transcript: a copy of its session file under `<persona-root>/sessions/`,
 * which appears whole or not at all (a temporary file, flushed, renamed into place). The copy runs on the
 * thread pool, so a long transcript does not hold up the event loop; while the service stops it is made at
 * once, since the process exits right after and a copy still under way would be lost.
 */
import { randomBytes } from "node:crypto";
import { constants, readFileSync } from "node:fs";
import { access, copyFile, mkdir, open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { CodedError } from "../../shared/errors.js";
import { writeFileAtomic } from "../atomic-file.js";

/** The archive, like every record of a run, is private to the user. */
const FILE_MODE = 0o600;
const FOLDER_MODE = 0o700;

/**
 * Copies the transcript `source` to `target`; nothing when `source` cannot be read (nothing was recorded).
 * Fails with `io_error` naming `target` when it cannot be written; no temporary file is then left.
 */
export async function archiveTranscript(source: string, target: string, options: { now?: boolean } = {}): Promise<void> {
	if (options.now) return archiveNow(source, target);
	try {
		await access(source, constants.R_OK);
	} catch {
		return;
	}
	const folder = dirname(target);
	const temp = join(folder, `.${basename(target)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
	try {
		await mkdir(folder, { recursive: true, mode: FOLDER_MODE });
		await copyFile(source, temp, constants.COPYFILE_EXCL);
		const copy = await open(temp, "r+");
		try {
			await copy.chmod(FILE_MODE);
			await copy.sync();
		} finally {
			await copy.close();
		}
		await rename(temp, target);
	} catch (error) {
		await rm(temp, { force: true }).catch(() => undefined);
		const code = (error as NodeJS.ErrnoException).code;
		throw new CodedError("io_error", `${target} could not be written (${code ?? (error as Error).message}); it was left as it was`);
	}
	await syncFolder(folder);
}

/** The copy made at once, on the event loop (the service is stopping). */
function archiveNow(source: string, target: string): void {
	let text: string;
	try {
		text = readFileSync(source, "utf8");
	} catch {
		return; // nothing was recorded
	}
	writeFileAtomic(target, text);
}

/** Makes the rename durable where the file system allows it (best effort: the rename has happened). */
async function syncFolder(folder: string): Promise<void> {
	try {
		const handle = await open(folder, "r");
		try {
			await handle.sync();
		} finally {
			await handle.close();
		}
	} catch {
		// some file systems refuse to flush a folder
	}
}
