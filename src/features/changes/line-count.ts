/** Lines of text and git's idea of a binary file (a NUL in the first 8,000 bytes), for the changes outside git. */

/** git looks this far for a NUL to call a file binary. */
export const BINARY_SNIFF_BYTES = 8_000;

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
