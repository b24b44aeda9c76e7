/**
 * Markdown tokens (from marked's lexer) to Preact elements. Every string becomes a text node: raw HTML in
 * the source (`html` tokens, block or inline) shows as the literal text it is, links pass safeLinkHref and
 * images safeImageSrc (blocked ones show as `.blocked` text), and code goes through the highlighter's
 * tokens. Nothing here ever produces an HTML string. Written with `h` rather than JSX so that the unit
 * tests can load it in Node.
 */
import { type ComponentChildren, h } from "preact";
import type { Token, Tokens } from "marked";
import { CodeBlock } from "./code-block.js";
import { decodeEntities, decodeNamedEntities } from "./entities.js";
import { safeImageSrc, safeLinkHref } from "./safe-url.js";

/**
 * How far markdown headings sit below the page's own: `#` becomes `<h3>` (the page and its panels use h1
 * and h2), `####` and deeper `<h6>`. The class `md-h<depth>` keeps six visual sizes all the same.
 */
export const HEADING_LEVEL_OFFSET = 2;
const DEEPEST_HEADING = 6;

/** What links open with: a new tab that gets no handle on this page and no referrer. */
export const LINK_REL = "noopener noreferrer";

/** The elements of a list of block tokens (space and link definitions render nothing). */
export function blockElements(tokens: Token[]): ComponentChildren[] {
	const out: ComponentChildren[] = [];
	for (const token of tokens) {
		const element = blockElement(token);
		if (element !== null) out.push(element);
	}
	return out;
}

/** One block token as an element, or null for tokens that show nothing. */
export function blockElement(token: Token): ComponentChildren {
	const t = token as Tokens.Generic;
	switch (token.type) {
		case "space":
		case "def":
			return null;
		case "paragraph":
			return h("p", null, inlineElements(t.tokens ?? []));
		case "heading": {
			const { depth } = token as Tokens.Heading;
			const level = Math.min(depth + HEADING_LEVEL_OFFSET, DEEPEST_HEADING);
			return h(`h${level}`, { class: `md-h${depth}` }, inlineElements(t.tokens ?? []));
		}
		case "code": {
			const code = token as Tokens.Code;
			// The info string's first word names the language (`ts title="x"` is still TypeScript).
			const language = (code.lang ?? "").trim().split(/\s+/)[0] ?? "";
			// An indented block keeps its last line's newline in the token; a fenced one does not.
			return h(CodeBlock, { code: code.text.replace(/\n$/, ""), language });
		}
		case "blockquote":
			return h("blockquote", null, blockElements(t.tokens ?? []));
		case "list":
			return listElement(token as Tokens.List);
		case "table":
			return tableElement(token as Tokens.Table);
		case "hr":
			return h("hr", null);
		case "html":
			// Raw HTML is shown as the text it is, line breaks kept.
			return h("p", { class: "md-raw" }, (t.text as string).replace(/\n+$/, ""));
		case "text":
			// Top-level text in tight list items: inline content without a paragraph around it.
			return h("span", null, t.tokens ? inlineElements(t.tokens) : decodeNamedEntities(t.text as string));
		default:
			// A token type this renderer does not know still shows, as its source text.
			return h("p", null, t.raw);
	}
}

function listElement(list: Tokens.List) {
	const items = list.items.map((item) => {
		const children = item.tokens.map((child) => (child.type === "text" || child.type === "checkbox" ? inlineElement(child) : blockElement(child)));
		return h("li", item.task ? { class: "task" } : null, children);
	});
	if (!list.ordered) return h("ul", null, items);
	const start = typeof list.start === "number" && list.start !== 1 ? list.start : undefined;
	return h("ol", start === undefined ? null : { start }, items);
}

function tableElement(table: Tokens.Table) {
	const cell = (tag: "th" | "td", c: Tokens.TableCell) => h(tag, c.align ? { style: { textAlign: c.align } } : null, inlineElements(c.tokens));
	return h(
		"div",
		{ class: "table-wrap" },
		h(
			"table",
			null,
			h("thead", null, h("tr", null, table.header.map((c) => cell("th", c)))),
			table.rows.length > 0 ? h("tbody", null, table.rows.map((row) => h("tr", null, row.map((c) => cell("td", c))))) : null,
		),
	);
}

/** The elements of a list of inline tokens. */
export function inlineElements(tokens: Token[]): ComponentChildren[] {
	return tokens.map(inlineElement);
}

function inlineElement(token: Token): ComponentChildren {
	const t = token as Tokens.Generic;
	switch (token.type) {
		case "text":
			return t.tokens ? inlineElements(t.tokens) : decodeNamedEntities(t.text as string);
		case "escape":
			return t.text as string;
		case "html":
			// Inline HTML (`<b>`, `<img onerror=…>`) is text, exactly as written.
			return t.text as string;
		case "codespan":
			return h("code", null, t.text as string);
		case "strong":
			return h("strong", null, inlineElements(t.tokens ?? []));
		case "em":
			return h("em", null, inlineElements(t.tokens ?? []));
		case "del":
			return h("del", null, inlineElements(t.tokens ?? []));
		case "br":
			return h("br", null);
		case "link":
			return linkElement(token as Tokens.Link);
		case "image":
			return imageElement(token as Tokens.Image);
		case "checkbox":
			return h("input", { type: "checkbox", checked: (token as Tokens.Checkbox).checked, disabled: true, "aria-label": (token as Tokens.Checkbox).checked ? "done" : "not done" });
		default:
			return t.raw;
	}
}

function linkElement(link: Tokens.Link) {
	const children = inlineElements(link.tokens);
	// Autolinks keep their text literally (no references to decode); others may spell the URL with them.
	const href = safeLinkHref(link.autolink ? link.href : decodeEntities(link.href));
	if (!href) return h("span", { class: "blocked", title: "link blocked" }, children);
	const title = link.title ? decodeEntities(link.title) : undefined;
	return h("a", { href, title, target: "_blank", rel: LINK_REL }, children);
}

function imageElement(image: Tokens.Image) {
	const alt = decodeNamedEntities(image.text);
	const src = safeImageSrc(decodeEntities(image.href));
	if (!src) return h("span", { class: "blocked", title: "image blocked" }, `[image: ${alt || "blocked"}]`);
	return h("img", { src, alt, title: image.title ? decodeEntities(image.title) : undefined });
}
