/** How much of a growing text the page shows: tails of tool output, and streaming text that has settled. */

/** Tool output kept in the transcript: bash keeps its last 10 lines, other tools their last 6. */
export const BASH_TAIL_LINES = 10;
export const TOOL_TAIL_LINES = 6;

/** The last `keep` lines of `text`, and how many lines were left out. */
export function tail(text: string, keep: number): { shown: string; omitted: number } {
	const lines = text.replace(/\n+$/, "").split("\n");
	if (lines.length <= keep) return { shown: lines.join("\n"), omitted: 0 };
	return { shown: lines.slice(-keep).join("\n"), omitted: lines.length - keep };
}

/**
 * Streaming text without its unfinished last word: a credential arrives a few characters at a time, and
 * its prefix must not show before it is long enough for redaction to recognise it.
 */
export function settled(text: string): string {
	const end = text.search(/\S+$/);
	return end < 0 ? text : text.slice(0, end);
}
