/** The page's markdown renderer: marked's tokens to Preact elements, safety rules, and streaming. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Token } from "marked";
import { redactSecrets } from "../../../src/shared/redact.js";
import { blockElements, LINK_REL } from "../../../web/src/render/markdown-elements.js";
import { closeOpenInline, lexMarkdown, MarkdownStream } from "../../../web/src/render/markdown-stream.js";
import { settled } from "../../../web/src/render/text-window.js";
import { markup, textContent } from "../../support/vnode-markup.js";

// safeLinkHref compares relative links with the page's origin.
(globalThis as { location?: { origin: string } }).location = { origin: "http://127.0.0.1:8787" };

/** What the Markdown component renders for a finished text: redacted, lexed, built. */
const render = (text: string) => blockElements(lexMarkdown(redactSecrets(text)).tokens);
const md = (text: string) => markup(render(text));
const link = (href: string, text: string, extra = "") => `<a href="${href}" rel="${LINK_REL}" target="_blank"${extra}>${text}</a>`;

test("ATX and setext headings become h3–h6 with one size class per depth", () => {
	assert.equal(
		md("# One\n## Two\n### Three\n#### Four\n##### Five\n###### Six"),
		'<h3 class="md-h1">One</h3><h4 class="md-h2">Two</h4><h5 class="md-h3">Three</h5><h6 class="md-h4">Four</h6><h6 class="md-h5">Five</h6><h6 class="md-h6">Six</h6>',
	);
	assert.equal(md("Title\n=====\n\nSection\n-------"), '<h3 class="md-h1">Title</h3><h4 class="md-h2">Section</h4>');
	assert.equal(md("## Closed ##"), '<h4 class="md-h2">Closed</h4>');
	assert.equal(md("#NoSpace"), "<p>#NoSpace</p>");
});

test("lists: a bullet list after a numbered one is a second list; nesting, start numbers, task items", () => {
	assert.equal(md("1. one\n2. two\n- bullet\n- more"), "<ol><li>one</li><li>two</li></ol><ul><li>bullet</li><li>more</li></ul>");
	assert.equal(md("- a\n  - b\n    1. c\n- d"), "<ul><li>a<ul><li>b<ol><li>c</li></ol></li></ul></li><li>d</li></ul>");
	assert.equal(md("3. three\n4. four"), '<ol start="3"><li>three</li><li>four</li></ol>');
	assert.equal(md("- one\n\n- two"), "<ul><li><p>one</p></li><li><p>two</p></li></ul>", "a loose list has paragraphs");
	assert.equal(
		md("- [ ] todo\n- [x] done"),
		'<ul><li class="task"><input aria-label="not done" disabled type="checkbox"/>todo</li><li class="task"><input aria-label="done" checked disabled type="checkbox"/>done</li></ul>',
	);
});

test("inline: escapes, emphasis, strong, strikethrough, code, entities", () => {
	assert.equal(md("\\*not em\\* \\# \\[x\\] \\`y\\`"), "<p>*not em* # [x] `y`</p>");
	assert.equal(md("\\# not a heading"), "<p># not a heading</p>");
	assert.equal(md("*a* _b_ **c** __d__ ***e*** ~~f~~"), "<p><em>a</em> <em>b</em> <strong>c</strong> <strong>d</strong> <em><strong>e</strong></em> <del>f</del></p>");
	assert.equal(md("snake_case_name and 2 * 3 * 4"), "<p>snake_case_name and 2 * 3 * 4</p>");
	assert.equal(md("`a <b> & **c**`"), "<p><code>a &lt;b&gt; &amp; **c**</code></p>");
	assert.equal(textContent(render("&amp; &lt;tag&gt; &copy; &#65; &#x42; &unknown; a & b")), "& <tag> © A B &unknown; a & b");
});

test("links: parentheses in the URL, titles, autolinks, bare URLs, references", () => {
	assert.equal(md("[wiki](https://en.wikipedia.org/wiki/Foo_(bar))"), `<p>${link("https://en.wikipedia.org/wiki/Foo_(bar)", "wiki")}</p>`);
	assert.equal(md('[docs](/web "The page")'), `<p>${link("/web", "docs", ' title="The page"')}</p>`);
	assert.equal(md("<https://a.example/x>"), `<p>${link("https://a.example/x", "https://a.example/x")}</p>`);
	assert.equal(md("<someone@example.com>"), `<p>${link("mailto:someone@example.com", "someone@example.com")}</p>`);
	assert.equal(md("see https://b.example/y. and www.c.example"), `<p>see ${link("https://b.example/y", "https://b.example/y")}. and ${link("http://www.c.example", "www.c.example")}</p>`);
	assert.equal(md("[text][ref]\n\n[ref]: https://d.example"), `<p>${link("https://d.example", "text")}</p>`);
	assert.equal(md("[**bold** link](https://e.example)"), `<p>${link("https://e.example", "<strong>bold</strong> link")}</p>`);
});

test("blocks: quotes, tables in a scrolling wrapper, rules, line breaks", () => {
	assert.equal(md("> quoted\n> - item\n>\n> > nested"), "<blockquote><p>quoted</p><ul><li>item</li></ul><blockquote><p>nested</p></blockquote></blockquote>");
	assert.equal(
		md("| a | b | c |\n|:--|:-:|--:|\n| 1 | **2** | `3` |"),
		'<div class="table-wrap"><table><thead><tr><th style={"textAlign":"left"}>a</th><th style={"textAlign":"center"}>b</th><th style={"textAlign":"right"}>c</th></tr></thead>' +
			'<tbody><tr><td style={"textAlign":"left"}>1</td><td style={"textAlign":"center"}><strong>2</strong></td><td style={"textAlign":"right"}><code>3</code></td></tr></tbody></table></div>',
	);
	assert.equal(md("a\n\n---\n\n***\n\n___\n\nb"), "<p>a</p><hr/><hr/><hr/><p>b</p>");
	assert.equal(md("hard  \nbreak\\\nagain\nsoft"), "<p>hard<br/>break<br/>again<br/>soft</p>", "single line breaks stay visible in chat");
});

test("code: fenced with its language, indented, an open fence as code so far", () => {
	assert.equal(md("```ts title=x\nconst a = 1;\n```"), '<CodeBlock code="const a = 1;" language="ts"/>');
	assert.equal(md("~~~\n<b>x</b>\n~~~"), '<CodeBlock code="&lt;b&gt;x&lt;/b&gt;" language=""/>');
	assert.equal(md("text\n\n    indented()\n    more\n"), '<p>text</p><CodeBlock code="indented()\nmore" language=""/>');
	assert.equal(md("```py\nprint(1)\n\nprint(2"), '<CodeBlock code="print(1)\n\nprint(2" language="py"/>');
});

test("images: whitelisted base64 data URIs only; the rest shows as blocked text", () => {
	for (const type of ["png", "jpeg", "gif", "webp", "avif", "bmp"]) {
		assert.equal(md(`![pic](data:image/${type};base64,AAAA)`), `<p><img alt="pic" src="data:image/${type};base64,AAAA"/></p>`, type);
	}
	for (const src of ["https://evil.example/beacon.png", "//evil.example/x.png", "data:image/svg+xml;base64,PHN2Zz4=", "data:text/html;base64,PHNjcmlwdD4=", "data:image/png,raw"]) {
		assert.equal(md(`![pic](${src})`), '<p><span class="blocked" title="image blocked">[image: pic]</span></p>', src);
	}
});

test("safety: script links are blocked, raw HTML is text, secrets are redacted before lexing", () => {
	const blocked = (text: string) => `<span class="blocked" title="link blocked">${text}</span>`;
	assert.equal(md("[a](javascript:alert(1)) [b](JaVaScRiPt:x) [c](&#106;avascript:x) [d](vbscript:x)"), `<p>${blocked("a")} ${blocked("b")} ${blocked("c")} ${blocked("d")}</p>`);
	assert.equal(md("[e](//evil.example) [f](/\\evil.example) [g](data:text/html,x)"), `<p>${blocked("e")} ${blocked("f")} ${blocked("g")}</p>`);
	assert.equal(md("<script>window.x = 1</script>"), '<p class="md-raw">&lt;script&gt;window.x = 1&lt;/script&gt;</p>');
	assert.equal(md('<img src=x onerror="alert(1)">'), '<p class="md-raw">&lt;img src=x onerror="alert(1)"&gt;</p>');
	assert.equal(md('text <img src=x onerror="alert(1)"> <a href="javascript:x">y</a>'), '<p>text &lt;img src=x onerror="alert(1)"&gt; &lt;a href="javascript:x"&gt;y&lt;/a&gt;</p>');
	assert.equal(md("**<b onmouseover=x>bold</b>**"), "<p><strong>&lt;b onmouseover=x&gt;bold&lt;/b&gt;</strong></p>");
	const secret = "sk-ant-api03-Abcdefghijklmnopqrstuvwx";
	const out = md(`key ${secret}\n\n[l](https://e.example/?api_key=supersecretvalue123)\n\n\`\`\`\nexport KEY=${secret}\n\`\`\`\n\n| t |\n|---|\n| ghp_abcdefghijklmnopqrstuvwxyz0123456789 |`);
	for (const leaked of [secret, "supersecretvalue123", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"]) assert.ok(!out.includes(leaked), `${leaked} in ${out}`);
	// (The marker's brackets end a link destination early, so that link shows as text plus a bare URL.)
	for (const part of ["<p>key [REDACTED]</p>", 'code="export KEY=[REDACTED]"', "<td>[REDACTED]</td>", "api_key=[REDACTED]"]) assert.ok(out.includes(part), `${part} in ${out}`);
});

test("streaming: open inline markup is closed for display, never inside code", () => {
	const cases: [string, string][] = [
		["text **bold ", "text **bold** "],
		["a `code", "a `code`"],
		["x ~~gone", "x ~~gone~~"],
		["- item *em", "- item *em*"],
		["> q __strong", "> q __strong__"],
		["use `a` and **b `c", "use `a` and **b `c`**"],
		["see [the docs", "see the docs"],
		["trailing **", "trailing"],
		["**Note:** done ", "**Note:** done "],
		["2 * 3 and snake_case_name ", "2 * 3 and snake_case_name "],
		["```js\nconst a = **b", "```js\nconst a = **b"],
		["```js\nx\n\ny\n```\nafter **b", "```js\nx\n\ny\n```\nafter **b**"],
		["**a**\n\nnew *para", "**a**\n\nnew *para*"],
		["- one\n- ", "- one\n "],
		["text\n\n## ", "text\n\n "],
		["1. a\n2.", "1. a\n"],
	];
	for (const [text, shown] of cases) assert.equal(closeOpenInline(text), shown, JSON.stringify(text));
});

test("streaming: formatted while it grows, complete blocks kept as they are, the end equal to a whole lex", () => {
	const reply = [
		"# Plan",
		"Intro with **bold**, `code` and a [link](https://x.example/(a)).",
		"1. one\n2. two\n- bullet\n  - nested",
		"```ts\nconst a = 1;\n\nconst b = 2;\n```",
		"> quoted\n> more",
		"| a | b |\n|---|---|\n| 1 | 2 |",
		"Setext\n---",
		"- [ ] task\n- [x] done",
		"[r]: https://ref.example",
		"See [the ref][r] and <script>x</script> here.",
	].join("\n\n");
	const stream = new MarkdownStream();
	let before: Token[] = [];
	for (let end = 1; end <= reply.length; end++) {
		const { tokens } = stream.update(settled(reply.slice(0, end)));
		// Every block but the last two of the previous update is complete: the very same token object.
		for (let i = 0; i < before.length - 2; i++) assert.equal(tokens[i], before[i], `block ${i} re-lexed at ${end}`);
		before = tokens;
	}
	const streamed = stream.update(reply);
	assert.equal(markup(blockElements(streamed.tokens)), markup(blockElements(lexMarkdown(reply).tokens)));

	const partial = new MarkdownStream();
	assert.equal(markup(blockElements(partial.update(settled("## Heading\n\nSome **bold te")).tokens)), '<h4 class="md-h2">Heading</h4><p>Some <strong>bold</strong> </p>');
	assert.equal(markup(blockElements(partial.update(settled("## Heading\n\nSome **bold text** and\n\n```sh\nls -la\nec")).tokens)), '<h4 class="md-h2">Heading</h4><p>Some <strong>bold text</strong> and</p><CodeBlock code="ls -la" language="sh"/>');
	assert.equal(markup(blockElements(partial.update(settled("1. a\n2. b\n- c\n- d")).tokens)), "<ol><li>a</li><li>b</li></ol><ul><li>c</li></ul>", "a text that is not a continuation starts over");
});

test("streaming a long reply lexes only its last block each time", () => {
	const blocks = Array.from({ length: 400 }, (_, i) => `Paragraph ${i} with **bold** text.`);
	const stream = new MarkdownStream();
	let text = "";
	let first: Token | undefined;
	for (const block of blocks) {
		text += `${block}\n\n`;
		const { tokens } = stream.update(text);
		// The first paragraph is complete once the second one has started, and kept from then on.
		if (tokens.length > 2) first ??= tokens[0];
		if (first) assert.equal(tokens[0], first);
	}
	// The work per update is the text after the complete blocks: the last paragraph and its blank line.
	const rest = text.length - stream.completeLength;
	assert.ok(rest <= blocks.at(-1)!.length + 2, `rest ${rest}`);
});
