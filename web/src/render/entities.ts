/**
 * HTML character references in markdown text, decoded to the characters they stand for. The page renders
 * markdown as text nodes, never as HTML, so the lexer's `&amp;`-style text would otherwise show literally.
 * Only a table of the references people actually type is kept (the full HTML list is 2,000+ names and
 * would cost more than the rest of the renderer); an unknown name stays as written.
 */

const NAMED: Record<string, string> = {
	amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0", shy: "\u00ad",
	copy: "©", reg: "®", trade: "™", hellip: "…", mdash: "—", ndash: "–", minus: "−",
	lsquo: "‘", rsquo: "’", ldquo: "“", rdquo: "”", laquo: "«", raquo: "»", bull: "•", middot: "·",
	deg: "°", plusmn: "±", times: "×", divide: "÷", micro: "µ", sect: "§", para: "¶", dagger: "†",
	frac12: "½", frac14: "¼", frac34: "¾", sup2: "²", sup3: "³", prime: "′", Prime: "″",
	larr: "←", rarr: "→", uarr: "↑", darr: "↓", harr: "↔", lArr: "⇐", rArr: "⇒", hArr: "⇔",
	le: "≤", ge: "≥", ne: "≠", asymp: "≈", equiv: "≡", infin: "∞", sum: "∑", radic: "√",
	euro: "€", pound: "£", yen: "¥", cent: "¢", check: "✓", cross: "✗", star: "☆", starf: "★",
	alpha: "α", beta: "β", gamma: "γ", delta: "δ", lambda: "λ", mu: "μ", pi: "π", sigma: "σ", theta: "θ", omega: "ω", Delta: "Δ", Omega: "Ω",
	ensp: "\u2002", emsp: "\u2003", thinsp: "\u2009", zwj: "\u200d", zwnj: "\u200c",
};

const NAMED_REFERENCE = /&([A-Za-z][A-Za-z0-9]{1,31});/g;
const ANY_REFERENCE = /&(?:#(\d{1,7})|#[xX]([0-9A-Fa-f]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));/g;

/**
 * Text with its named references decoded. For the lexer's text tokens, whose numeric references it has
 * already decoded (it re-encodes a bare `&` as `&amp;` when it does, which this turns back).
 */
export function decodeNamedEntities(text: string): string {
	return text.includes("&") ? text.replace(NAMED_REFERENCE, (match, name: string) => NAMED[name] ?? match) : text;
}

/** Text with named and numeric references decoded, in one pass (a decoded `&` is never decoded again). */
export function decodeEntities(text: string): string {
	if (!text.includes("&")) return text;
	return text.replace(ANY_REFERENCE, (match, decimal: string | undefined, hex: string | undefined, name: string | undefined) => {
		if (name !== undefined) return NAMED[name] ?? match;
		const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex!, 16);
		// CommonMark: NUL, surrogates and values past Unicode become the replacement character.
		return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? "\ufffd" : String.fromCodePoint(code);
	});
}
