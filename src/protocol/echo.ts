/** How much of what a client sent comes back in an error: enough to recognise it, never its megabytes. */

/** Longest client-supplied text (`type`, a field name, a value) echoed back; longer text is cut and marked "…". */
export const MAX_ECHO_CHARS = 64;

/** `text` cut to `limit` characters and "…" when longer. */
export function cut(text: string, limit: number): string {
	return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** `text` as it may be echoed: whole when short, else its first MAX_ECHO_CHARS characters and "…". */
export function echo(text: string): string {
	return cut(text, MAX_ECHO_CHARS);
}
