/** Files named in one message: the first few, and how many more. */
const FILES_IN_MESSAGE = 10;

export function listFiles(files: readonly string[]): string {
	const shown = files.slice(0, FILES_IN_MESSAGE).join(", ");
	return files.length > FILES_IN_MESSAGE ? `${shown} and ${files.length - FILES_IN_MESSAGE} more` : shown;
}
