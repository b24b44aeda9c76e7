/**
 * Redacting only what is kept. Where text is cut to a number of characters anyway (what guests see, peek_main,
 * the tree's previews, error messages), redacting all of it first costs as much as the text is long, megabytes
 * for a few thousand characters shown. Cutting first is cheap, but a secret straddling the cut escapes its
 * pattern: the half that stays is shown as it is. So the text is cut a margin past what is kept, and the word
 * the cut falls in is dropped whole: every secret is then matched whole or not looked at, and one that
 * redaction shortens earlier cannot pull a half into view.
 */
import { redactSecrets } from "./redact.js";

/**
 * Characters looked at past what is kept: a secret that starts before the cut and ends within this many
 * characters past it is redacted as it would be in the whole text (a JWT's header and payload, a PEM block's
 * first lines); a longer word there is dropped (see redactionWindow).
 */
export const REDACTION_MARGIN_CHARS = 8192;

/**
 * Characters no secret shape runs across (whitespace, quotes, `&`, `,`, `;`: those that end the `token=`
 * pair rule's value, the widest of the shapes' words), so a cut right after one splits no secret. A PEM block
 * runs across lines but matches to the end of the text when its end is cut off.
 */
const WORD_END = /[\s"'&,;]/;

/**
 * `text` cut to at most `chars` characters, without the word the cut falls in (when it was cut): nothing of it
 * may be a secret's half that its pattern no longer recognises. Empty when the first `chars` characters are
 * one word.
 */
export function redactionWindow(text: string, chars: number): string {
	if (text.length <= chars) return text;
	// A word boundary right at the cut keeps everything before it.
	if (WORD_END.test(text.charAt(chars))) return text.slice(0, chars);
	for (let end = chars; end > 0; end--) if (WORD_END.test(text.charAt(end - 1))) return text.slice(0, end);
	return "";
}

/**
 * The first `maxChars` characters of `redactSecrets(prepare(text))`, and whether anything was cut, computed
 * from only the first `maxChars` + REDACTION_MARGIN_CHARS characters of `text` (the same result whenever the
 * text is no longer than that). `prepare` rewrites the text before redaction (guests' view shortens paths).
 */
export function redactKept(text: string, maxChars: number, prepare: (text: string) => string = (same) => same): { text: string; cut: boolean } {
	const window = redactionWindow(text, maxChars + REDACTION_MARGIN_CHARS);
	const out = redactSecrets(prepare(window));
	if (out.length > maxChars) return { text: out.slice(0, maxChars), cut: true };
	return { text: out, cut: window.length < text.length };
}
