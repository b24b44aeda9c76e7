/**
 * PEM private key blocks in text that arrives in pieces: the first step of streamed redaction
 * (redact-stream.ts). redactSecrets replaces a block, from its `-----BEGIN … PRIVATE KEY-----` line to its
 * `-----END … PRIVATE KEY-----` line (or to the end of the text when none follows), before anything else; this
 * does the same as the text streams. A header still being written is held back (it may turn out to be none);
 * once it is whole the marker goes out at once and everything up to the END line is dropped, so a key's body
 * is never held, whatever its length, and never released, however it is cut.
 */
import { REDACTED } from "./redact.js";

const BEGIN = "-----BEGIN";
const END = "-----END";
/** A whole header or footer, at the start of the text (the shapes of src/shared/redact.ts). */
const WHOLE = { [BEGIN]: /^-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/, [END]: /^-----END [A-Z0-9 ]*PRIVATE KEY-----/ };
/** The start of a header or footer that more text could still complete. */
const OPEN = {
	[BEGIN]: /^-----BEGIN(?: [A-Z0-9 ]*(?:PRIVATE KEY-{0,4})?)?$/,
	[END]: /^-----END(?: [A-Z0-9 ]*(?:PRIVATE KEY-{0,4})?)?$/,
};
/**
 * Longest header or footer held while it is written. Real ones are under 40 characters; a longer run of
 * capitals after `-----BEGIN ` counts as a block (redacted to its END line), a longer one after `-----END ` as
 * no footer (the block goes on): either way more is hidden, never less.
 */
export const MAX_PEM_LINE_CHARS = 256;

/** How many characters at the end of `text` begin `word` (so the next piece may complete it). */
function partialTail(text: string, word: string): number {
	for (let n = Math.min(word.length - 1, text.length); n > 0; n--) if (word.startsWith(text.slice(text.length - n))) return n;
	return 0;
}

export class PemBlockStream {
	/** Text held back: the possible start of a header (outside a block) or of a footer (inside one). */
	private pending = "";
	private inBlock = false;

	/** Characters held back now (a header or footer being written, at most MAX_PEM_LINE_CHARS). */
	get holding(): number {
		return this.pending.length;
	}

	/** The text to pass on for `piece`: blocks replaced by the marker, a possible header held back. */
	push(piece: string): string {
		let text = this.pending + piece;
		this.pending = "";
		let out = "";
		while (text) {
			const word = this.inBlock ? END : BEGIN;
			const at = text.indexOf(word);
			if (at < 0) {
				const keep = partialTail(text, word);
				if (!this.inBlock) out += text.slice(0, text.length - keep);
				this.pending = text.slice(text.length - keep);
				break;
			}
			if (!this.inBlock) out += text.slice(0, at);
			text = text.slice(at);
			const whole = WHOLE[word].exec(text);
			if (whole) {
				if (!this.inBlock) out += REDACTED;
				this.inBlock = !this.inBlock;
				text = text.slice(whole[0].length);
				continue;
			}
			if (OPEN[word].test(text)) {
				if (text.length <= MAX_PEM_LINE_CHARS) {
					this.pending = text;
					break;
				}
				if (!this.inBlock) {
					out += REDACTED;
					this.inBlock = true;
					break;
				}
			}
			// Not a header (or footer) here: pass its first character and look further on.
			if (!this.inBlock) out += text[0];
			text = text.slice(1);
		}
		return out;
	}

	/** The text ends: a header never completed is plain text after all; inside a block, nothing more. */
	end(): string {
		const rest = this.inBlock ? "" : this.pending;
		this.pending = "";
		this.inBlock = false;
		return rest;
	}
}
