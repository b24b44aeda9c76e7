/**
 * A memory search's query as the patterns an entry is scored with: the whole phrase, and each of its words,
 * each matching at the start of a word ("test" finds "testing", not "attestation"). Every pattern is one scan
 * of every entry, and a scan compares up to a pattern's length at each word start, so a query is bounded in
 * both: the recall tool's query is the model's text, and a query of thousands of words over a full store held
 * the event loop for seconds.
 */

/** Words of a query that count, the first distinct ones (a search is one scan of the store per word). */
export const MAX_QUERY_TERMS = 16;
/** Characters of the phrase, or of a word, that must match (the first ones). */
export const MAX_MATCHED_CHARS = 256;

export interface QueryMatchers {
	whole: RegExp;
	terms: RegExp[];
}

/** The patterns of a query already trimmed, lower-cased and with its whitespace made single spaces. */
export function queryMatchers(normalized: string): QueryMatchers {
	const terms = [...new Set(normalized.split(" ").map(head))].slice(0, MAX_QUERY_TERMS);
	return { whole: atWordStart(head(normalized)), terms: terms.map(atWordStart) };
}

function head(text: string): string {
	if (text.length <= MAX_MATCHED_CHARS) return text;
	// Not between the halves of a character: half of one would match none.
	const last = text.charCodeAt(MAX_MATCHED_CHARS - 1);
	return text.slice(0, last >= 0xd800 && last <= 0xdbff ? MAX_MATCHED_CHARS - 1 : MAX_MATCHED_CHARS);
}

function atWordStart(text: string): RegExp {
	return new RegExp(`(^|[^\\p{L}\\p{N}_])${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "u");
}
