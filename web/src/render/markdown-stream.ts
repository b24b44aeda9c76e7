/**
 * Lexing markdown with marked's CommonMark + GFM lexer, whole or as it streams. A streaming reply is lexed
 * incrementally: top-level blocks that another block follows are complete (CommonMark closes a block when
 * the next one starts; only the last block can still change), so they are kept, token objects and all, and
 * each update lexes only the text from the last block on. The caller memoizes rendering by token, so a
 * long reply costs one lex of its last block per repaint, not a lex of the whole reply. When the reply
 * ends it is lexed whole once (lexMarkdown), which also resolves reference links defined late.
 */
import { Lexer, type Links, type MarkedOptions, type Token } from "marked";

/**
 * GFM (tables, task lists, strikethrough, bare URLs) and visible single line breaks: a model that writes
 * one line per fact means those breaks, as people reading chat expect.
 */
function lexerOptions(): MarkedOptions {
	// A fresh object each time: the lexer stores its tokenizer on the options it is given.
	return { gfm: true, breaks: true };
}

/** What to render: the block tokens, and a key that changes when link definitions do. */
export interface MarkdownView {
	tokens: Token[];
	/** Reference-style links resolve against these; blocks memoized by source re-render when it changes. */
	linksKey: string;
}

/** The whole text, lexed at once (a finished reply, a note). `links` seeds reference definitions. */
export function lexMarkdown(text: string, links?: Links): MarkdownView {
	const lexer = new Lexer(lexerOptions());
	if (links) Object.assign(lexer.tokens.links, links);
	const tokens = lexer.lex(text);
	return { tokens, linksKey: JSON.stringify(tokens.links) };
}

/** Incremental lexing of one growing text; `update` with each new version of it. */
export class MarkdownStream {
	/** The source of the complete blocks, a prefix of every later text (else the stream starts over). */
	private doneSource = "";
	private done: Token[] = [];
	private links: Links = Object.create(null);
	private linksKey = "{}";

	/** How much of the text is in complete blocks, which later updates do not lex again. */
	get completeLength(): number {
		return this.doneSource.length;
	}

	/** The tokens to show for `text`: the complete blocks as before, the rest lexed afresh. */
	update(text: string): MarkdownView {
		if (!text.startsWith(this.doneSource)) this.reset();
		const rest = text.slice(this.doneSource.length);
		const shown = closeOpenInline(rest);
		const { tokens } = lexMarkdown(shown, this.links);
		let last = tokens.length - 1;
		while (last > 0 && tokens[last]!.type === "space") last--;
		// Everything before the last block is complete, if it was lexed from the text as it is (the
		// closing of open inline markup only ever touches the last block, but check rather than assume).
		let length = 0;
		for (let i = 0; i < last; i++) length += tokens[i]!.raw.length;
		if (last > 0 && shown.slice(0, length) === rest.slice(0, length)) {
			for (const token of tokens.slice(0, last)) this.complete(token);
			this.doneSource += rest.slice(0, length);
			return { tokens: this.done.concat(tokens.slice(last)), linksKey: this.linksKey };
		}
		return { tokens: this.done.concat(tokens), linksKey: this.linksKey };
	}

	private complete(token: Token): void {
		this.done.push(token);
		if (token.type === "def" && !this.links[token.tag]) {
			this.links[token.tag] = { href: token.href, title: token.title };
			this.linksKey = JSON.stringify(this.links);
		}
	}

	private reset(): void {
		this.doneSource = "";
		this.done = [];
		this.links = Object.create(null);
		this.linksKey = "{}";
	}
}

const FENCE = /^ *(`{3,}|~{3,})/;

/**
 * The last block of a streaming text with its open inline markup closed for display, so that an
 * unfinished `**bold`, `~~struck`, `` `code `` or `_em` shows formatted rather than as raw markers, and an
 * unfinished link `[text` shows as its text; a list item, heading or quote marker without its text yet does
 * not show at all. Inside an open code fence nothing changes. Conservative:
 * an opener counts only where it follows a space, a bracket or punctuation, as emphasis does in prose.
 */
export function closeOpenInline(text: string): string {
	let body = text.trimEnd();
	const trailing = text.slice(body.length);
	const start = openParagraphStart(body);
	if (!body || start < 0) return text;
	// A last line that is only a marker (`-`, `2.`, `##`, `>`) is a block whose text is still to come.
	const lineStart = body.lastIndexOf("\n") + 1;
	if (lineStart >= start && /^[ \t]*(?:[-*+]|\d{1,9}[.)]|#{1,6}|>)$/.test(body.slice(lineStart))) return body.slice(0, lineStart) + trailing;
	let paragraph = body.slice(start);
	// `[text` or `![alt` not yet closed (the link's `](url)` is still to come): show the text.
	paragraph = paragraph.replace(/(^|[\s(])!?\[([^[\]\n]*)$/, "$1$2");
	const { open, code } = scanInline(paragraph);
	// An opener with nothing after it yet is dropped rather than closed around nothing.
	while (open.length > 0 && !paragraph.slice(open.at(-1)!.at + open.at(-1)!.marker.length).trim()) paragraph = paragraph.slice(0, open.pop()!.at).trimEnd();
	let closers = "";
	if (code) {
		if (paragraph.slice(code.at + code.run).trim()) closers += "`".repeat(code.run);
		else paragraph = paragraph.slice(0, code.at).trimEnd();
	}
	for (let i = open.length - 1; i >= 0; i--) closers += open[i]!.marker;
	body = body.slice(0, start) + paragraph;
	return body + closers + trailing;
}

/**
 * Where the open paragraph starts: after the last blank line or closing code fence, whichever is later;
 * -1 inside an open code fence (whose text is code, not markup).
 */
function openParagraphStart(text: string): number {
	let start = 0;
	let fence: string | undefined;
	let offset = 0;
	for (const line of text.split("\n")) {
		const next = offset + line.length + 1;
		// List items and quotes indent or prefix their fences; strip the prefixes to see the fence.
		const bare = line.replace(/^(?:\s*(?:[-*+]|\d{1,9}[.)]|>)(?=\s))*\s*/, "");
		const marker = FENCE.exec(bare)?.[1];
		if (fence !== undefined) {
			if (marker && marker[0] === fence[0] && marker.length >= fence.length && !bare.slice(marker.length).trim()) {
				fence = undefined;
				start = next;
			}
		} else if (marker) fence = marker;
		else if (!line.trim()) start = next;
		offset = next;
	}
	return fence === undefined ? Math.min(start, text.length) : -1;
}

interface Opener {
	marker: string;
	at: number;
}

/** Emphasis openers still open at the end of `text`, and an open code span (its backtick run). */
function scanInline(text: string): { open: Opener[]; code?: { at: number; run: number } } {
	const open: Opener[] = [];
	let code: { at: number; run: number } | undefined;
	let i = 0;
	while (i < text.length) {
		const c = text[i]!;
		if (c === "\\") {
			i += 2;
			continue;
		}
		const run = runLength(text, i);
		if (c === "`") {
			if (!code) code = { at: i, run };
			else if (run === code.run) code = undefined;
			i += run;
			continue;
		}
		if (code || (c !== "*" && c !== "_" && c !== "~")) {
			i++;
			continue;
		}
		const marker = c === "~" ? (run === 2 ? "~~" : "") : run <= 2 ? c.repeat(run) : "";
		const before = text[i - 1] ?? " ";
		// At the very end a marker may open what is still to come (it is then dropped, not closed).
		const after = text[i + run] ?? "";
		const canClose = !/\s/.test(before);
		const canOpen = !/\s/.test(after) && !/[\p{L}\p{N}]/u.test(before);
		if (marker && canClose && open.at(-1)?.marker === marker) open.pop();
		else if (marker && canOpen) open.push({ marker, at: i });
		i += run;
	}
	return { open, code };
}

function runLength(text: string, at: number): number {
	let end = at;
	while (text[end] === text[at]) end++;
	return end - at;
}
