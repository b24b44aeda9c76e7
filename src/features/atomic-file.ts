/**
 * Whole-file writes that never leave a half-written file (see src/shared/atomic-write.ts), with the errors
 * features report. Used by features that keep their own records (jobs, personas).
 */
import { basename } from "node:path";
import { FileExistsError, writeFileAtomically } from "../shared/atomic-write.js";
import { CodedError } from "../shared/errors.js";

/** Private to the user: records may hold what agents said. */
const FILE_MODE = 0o600;
/** The folder of a feature's records is private too. */
const FOLDER_MODE = 0o700;

/**
 * Replaces (or creates) `path` with `text`, creating its folder. With `exclusive`, an existing file is never
 * replaced (`conflict`). Throws `io_error` naming the file when writing fails; the old file is then intact.
 */
export function writeFileAtomic(path: string, text: string, options: { exclusive?: boolean } = {}): void {
	try {
		writeFileAtomically(path, text, { mode: FILE_MODE, createFolder: { mode: FOLDER_MODE }, exclusive: options.exclusive });
	} catch (error) {
		if (error instanceof FileExistsError) throw new CodedError("conflict", `${basename(path)} already exists`);
		const code = (error as NodeJS.ErrnoException).code;
		throw new CodedError("io_error", `${path} could not be written (${code ?? (error as Error).message}); it was left as it was`);
	}
}
