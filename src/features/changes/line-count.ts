/**
 * Lines of a file git does not know yet (an untracked file has no numstat): read bounded, off the event loop,
 * never waiting on a FIFO; binary as git decides it (a NUL in the first 8,000 bytes).
 */
import { NotRegularFileError, openRegularFile } from "../../shared/regular-file.js";

/** Files up to this size are read to count their lines. */
export const COUNTED_BYTES_LIMIT = 8 * 1024 * 1024;
/** git looks this far for a NUL to call a file binary. */
const BINARY_SNIFF_BYTES = 8_000;

export interface LineCount {
	lines: number;
	binary: boolean;
	/** Why the lines could not be counted. */
	note?: string;
}

export function isBinary(bytes: Uint8Array): boolean {
	return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/** Lines of text (a last line without a newline counts). */
export function countLines(text: string): number {
	if (text === "") return 0;
	let lines = 0;
	for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
	return text.endsWith("\n") ? lines : lines + 1;
}

export async function countFileLines(path: string): Promise<LineCount> {
	let handle;
	try {
		handle = await openRegularFile(path, "refuse");
	} catch (error) {
		if (error instanceof NotRegularFileError) return { lines: 0, binary: false, note: `not a regular file (${error.found})` };
		return { lines: 0, binary: false, note: `could not be read (${(error as NodeJS.ErrnoException).code ?? "error"})` };
	}
	try {
		const { size } = await handle.stat();
		if (size > COUNTED_BYTES_LIMIT) return { lines: 0, binary: false, note: `${size} bytes: too large to count its lines` };
		const bytes = await handle.readFile();
		if (isBinary(bytes)) return { lines: 0, binary: true };
		return { lines: countLines(bytes.toString("utf8")), binary: false };
	} finally {
		await handle.close();
	}
}
