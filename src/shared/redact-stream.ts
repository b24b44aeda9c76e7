/**
 * Redaction of text that arrives in pieces: a reply or its thinking as it streams, a tool call's arguments, a
 * command's output as it prints. Redacting each piece on its own lets a secret through in pieces (`sk-a`,
 * `nt-…`), so a StreamRedactor holds back what the next piece could still turn into a secret and releases only
 * text that no later piece can change: the released pieces join to exactly `redactSecrets(whole text)`.
 *
 * Two steps, in the order redactSecrets applies its shapes. PEM private key blocks first (pem-stream.ts): a
 * header is held until whole, then the marker goes out and the body up to the END line is dropped. Then every
 * other shape (src/shared/redact.ts) is one run of characters without a delimiter (white space, quotes, `&`,
 * `,`, `;`), except those that open with a name and reach across white space or quotes to their value
 * (`Bearer <token>`, `token: "<value>"`). So text is released up to the last delimiter that is not inside
 * such an opening (a "lead"), redacted; the unfinished run after it waits for the next piece or the end.
 *
 * Held text is bounded: a run longer than MAX_HELD_CHARS with no place to cut (one enormous word, or leads
 * without end) is released as the marker, and what follows it is dropped up to the next place to cut, so
 * memory stays bounded and a secret inside it still never shows; such text is hidden rather than shown.
 *
 * A reader watching text appear (the web page) cannot wait for the end of one enormous word: a 15,000-character
 * reply without a space stayed invisible for all of its streaming. With `showLongRuns`, a run longer than
 * LONG_RUN_CHARS is released as it grows up to just before the first place where any shape could open inside it
 * (safeRunEnd): no shape can reach into what is released, so the pieces still join to redactSecrets(whole), and
 * a run holding such an opening is held (and bounded) as before.
 */
import { PemBlockStream } from "./pem-stream.js";
import { REDACTED, redactSecrets } from "./redact.js";

/** Most characters held back at once (a secret is far shorter; PEM bodies are never held). */
export const MAX_HELD_CHARS = 8192;
/** A run longer than this is released as it grows (with `showLongRuns`); shorter words wait for their end as usual. */
export const LONG_RUN_CHARS = 256;
/**
 * Where any shape of redact.ts can start, in any case (a superset only holds more back): the key prefixes, a JWT's
 * `eyJ`, `Bearer`, the names of the pairs and a PEM header.
 */
const OPENING = /(?:sk|pk|rk)-|gh[pousr]_|github_pat_|xox[abprs]-|AKIA|ASIA|AIza|npm_|hf_|eyJ|bearer|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token|secret|password|passwd|-----BEGIN/i;
/** Longer than any opening above, so an opening cut by the end of the text so far is still held. */
const OPENING_TAIL_CHARS = 16;

/**
 * How much of `run` (held text with no place to cut) may go out now: up to one character before the first
 * opening (that character keeps `\b` at the opening as in the whole text) and at least OPENING_TAIL_CHARS short
 * of the end. `blocked`: an opening is there, so the rest of this run waits for its end (or the bound).
 */
function safeRunEnd(run: string): { end: number; blocked: boolean } {
	const opening = OPENING.exec(run);
	if (opening) return { end: Math.max(0, opening.index - 1), blocked: true };
	return { end: Math.max(0, run.length - OPENING_TAIL_CHARS - 1), blocked: false };
}

/** How much of the text before a place to cut is kept to tell whether a lead ends there (the longest is 17). */
const LEAD_CONTEXT_CHARS = 24;
/**
 * The openings that reach across a delimiter (white space collapsed to one space): `Bearer `, and a secret's
 * name with its quote and `:`/`=` (the names of redact.ts's pairs). Matching more than needed only holds
 * more back.
 */
const LEAD = /(?:bearer |(?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token|secret|password|passwd)["']? ?(?:[:=] ?["']?)?)$/i;

/** The next character no single-run secret shape has inside it: `"`, `'`, `&`, `,`, `;` or white space. */
const NEXT_DELIMITER = /[\s"'&,;]/g;
const SPACE = /\s/;

/** Whether a lead ends `context`, which ends with a delimiter; most text is told apart by its last characters. */
function endsWithLead(context: string): boolean {
	const last = context.charCodeAt(context.length - 1);
	if (last !== 32 && last !== 34 && last !== 39) return false; // a lead ends with a space or a quote
	return LEAD.test(context);
}

export class StreamRedactor {
	private readonly pem = new PemBlockStream();
	/** Text after the PEM step, not released yet. */
	private held = "";
	/** How much of `held` was looked at. */
	private scanned = 0;
	/** The last place in `held` where it may be cut (0: none yet). */
	private cut = 0;
	/** The text before the scan position, white space collapsed, for telling leads. */
	private context = "";
	private afterDelimiter = true;
	/** Whether a lead ends the context (undefined: not found yet since it last changed). */
	private lead: boolean | undefined;
	/** After a run over the bound was released as the marker: its rest is dropped up to the next place to cut. */
	private dropping = false;
	/** The run being held holds an opening: it waits for its end (or the bound) like any word. */
	private runBlocked = false;

	constructor(private readonly options: { showLongRuns?: boolean } = {}) {}

	/** Characters held back now (at most MAX_HELD_CHARS and a piece, with a PEM header being written). */
	get holding(): number {
		return this.held.length + this.pem.holding;
	}

	/** The redacted text that `piece` makes safe to show ("" while all of it must wait). */
	push(piece: string): string {
		this.held += this.pem.push(piece);
		const dropTo = this.scan();
		if (dropTo > 0) {
			this.take(dropTo);
			this.runBlocked = false;
		}
		let out = "";
		if (this.cut > 0) {
			out = redactSecrets(this.take(this.cut));
			this.runBlocked = false;
		}
		if (this.options.showLongRuns && !this.dropping && !this.runBlocked && this.held.length > LONG_RUN_CHARS) {
			const { end, blocked } = safeRunEnd(this.held);
			this.runBlocked = blocked;
			if (end > 0) out += redactSecrets(this.take(end));
		}
		if (this.held.length > MAX_HELD_CHARS) {
			out += this.dropping ? "" : REDACTED;
			this.held = "";
			this.scanned = 0;
			this.dropping = true;
		}
		return out;
	}

	/** The text has ended: the rest, redacted. The redactor is then ready for a new text. */
	end(): string {
		const rest = this.held + this.pem.end();
		const out = this.dropping ? "" : redactSecrets(rest);
		this.held = "";
		this.scanned = 0;
		this.cut = 0;
		this.context = "";
		this.lead = undefined;
		this.afterDelimiter = true;
		this.dropping = false;
		this.runBlocked = false;
		return out;
	}

	/**
	 * Looks at the new part of `held` for places to cut: after a delimiter, where no lead ends (inside a run of
	 * white space too: it is one space to the shapes). Returns where dropping stops (0 when it does not).
	 */
	private scan(): number {
		const text = this.held;
		let dropTo = 0;
		let i = this.scanned;
		for (;;) {
			// Whether text may be cut here depends only on the text before: the end of `held` is a place too.
			if (this.afterDelimiter && !(this.lead ??= endsWithLead(this.context))) {
				if (this.dropping) {
					this.dropping = false;
					dropTo = i;
				}
				this.cut = i;
			}
			if (i >= text.length) break;
			// A run without delimiters goes into the context whole; it holds no place to cut.
			NEXT_DELIMITER.lastIndex = i;
			const next = NEXT_DELIMITER.exec(text)?.index ?? text.length;
			if (next > i) {
				this.extend(text.slice(i, next));
				this.afterDelimiter = false;
				i = next;
				continue;
			}
			const char = text[i]!;
			if (!SPACE.test(char)) this.extend(char);
			else if (!this.context.endsWith(" ")) this.extend(" ");
			this.afterDelimiter = true;
			i++;
		}
		this.scanned = text.length;
		if (this.dropping) this.cut = 0;
		return dropTo;
	}

	/** Adds to the context (white space comes collapsed); whether a lead ends there is then to be found again. */
	private extend(chars: string): void {
		// Kept short and flat: it is read at every place to cut.
		this.context = (chars.length >= LEAD_CONTEXT_CHARS ? chars : this.context + chars).slice(-LEAD_CONTEXT_CHARS);
		this.lead = undefined;
	}

	/** Removes and returns the first `length` characters of `held`. */
	private take(length: number): string {
		const taken = this.held.slice(0, length);
		this.held = this.held.slice(length);
		this.scanned -= length;
		this.cut = Math.max(0, this.cut - length);
		return taken;
	}
}

/**
 * What may be shown of a text that is still growing (a streaming reply, a running command's output): its
 * redacted part that no later text can change, as a StreamRedactor given the whole text so far releases it.
 */
export function redactedSoFar(text: string, options?: { showLongRuns?: boolean }): string {
	return new StreamRedactor(options).push(text);
}
