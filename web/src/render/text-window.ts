/** How much of a growing text the page shows: tails of tool output, and streaming text that has settled. */
import { redactedSoFar, StreamRedactor } from "../../../src/shared/redact-stream.js";

/** Tool output kept in the transcript: bash keeps its last 10 lines, other tools their last 6. */
export const BASH_TAIL_LINES = 10;
export const TOOL_TAIL_LINES = 6;

/** The last `keep` lines of `text`, and how many lines were left out. */
export function tail(text: string, keep: number): { shown: string; omitted: number } {
	const lines = text.replace(/\n+$/, "").split("\n");
	if (lines.length <= keep) return { shown: lines.join("\n"), omitted: 0 };
	return { shown: lines.slice(-keep).join("\n"), omitted: lines.length - keep };
}

/** A reader watches the text appear: a very long word shows as it grows, not only at its end (redact-stream.ts). */
const SHOW_LONG_RUNS = { showLongRuns: true };

/**
 * What may be shown of a text that is still streaming, redacted: the service's own rule for everything that
 * streams (src/shared/redact-stream.ts), which holds back what the next piece could still make a secret (an
 * unfinished word, a `Bearer ` or `token: ` waiting for its value, a PEM key until its END line).
 */
export function settled(text: string): string {
	return redactedSoFar(text, SHOW_LONG_RUNS);
}

/**
 * settled() for one text as it grows, at the cost of what was added since the last update (a streaming reply
 * repaints every frame). A text that is not a continuation of the last one starts it over.
 */
export class GrowingText {
	private raw = "";
	private shown = "";
	private redactor = new StreamRedactor(SHOW_LONG_RUNS);

	update(text: string): string {
		if (!text.startsWith(this.raw)) {
			this.redactor = new StreamRedactor(SHOW_LONG_RUNS);
			this.raw = "";
			this.shown = "";
		}
		this.shown += this.redactor.push(text.slice(this.raw.length));
		this.raw = text;
		return this.shown;
	}
}
