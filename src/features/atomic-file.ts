/**
 * Whole-file writes that never leave a half-written file: a temporary file in the same folder, flushed and
 * renamed over the target. Used by features that keep their own records (jobs, personas).
 */
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { CodedError } from "../shared/errors.js";

/** Private to the user: records may hold what agents said. */
const FILE_MODE = 0o600;

/**
 * Replaces (or creates) `path` with `text`, creating its folder. With `exclusive`, an existing file is never
 * replaced (`conflict`). Throws `io_error` naming the file when writing fails; the old file is then intact.
 */
export function writeFileAtomic(path: string, text: string, options: { exclusive?: boolean } = {}): void {
	const folder = dirname(path);
	const temp = join(folder, `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
	try {
		mkdirSync(folder, { recursive: true, mode: 0o700 });
		const fd = openSync(temp, "wx", FILE_MODE);
		try {
			writeSync(fd, text);
			fsyncSync(fd);
		} finally {
			closeSync(fd);
		}
		if (options.exclusive) {
			// Claims the name first (an empty file, replaced by the rename): two writers cannot both create it.
			try {
				closeSync(openSync(path, "wx", FILE_MODE));
			} catch (error) {
				if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new CodedError("conflict", `${basename(path)} already exists`);
				throw error;
			}
		}
		renameSync(temp, path);
	} catch (error) {
		rmSync(temp, { force: true });
		if (error instanceof CodedError) throw error;
		const code = (error as NodeJS.ErrnoException).code;
		throw new CodedError("io_error", `${path} could not be written (${code ?? (error as Error).message}); it was left as it was`);
	}
}
