/** The build's cut of marked (web/marked-lexer-only.ts, web/marked-unset-options.ts): the Lexer alone, lexing exactly as marked's own. */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { Lexer } from "marked";
import { keepLexerOnly, lexerOnFirstUse } from "../../../web/marked-lexer-only.js";
import { foldUnsetOptions } from "../../../web/marked-unset-options.js";
import { tempDir } from "../../support/skiff-process.js";

const markedFile = createRequire(import.meta.url).resolve("marked");
const original = readFileSync(markedFile, "utf8");

const SAMPLE = [
	"# Title\n\nSetext\n===\n",
	"Some *emphasis*, **strong**, ~~gone~~, `code`, a [link](https://example.com \"t\") and <https://auto.link>.",
	"- [ ] task\n- [x] done\n  1. nested\n  2. list\n",
	"> quote\n> > deeper\n",
	"| a | b |\n|:--|--:|\n| 1 | 2 |\n",
	"```ts\nconst x = 1;\n```\n",
	"    indented code\n",
	"---\n\n![img](data:image/png;base64,AA==) &amp; &#35; \\*escaped\\*\n\n[ref]: https://example.com\n[ref]\n",
	"<div>html</div>\n",
].join("\n");

test("the cut module exports the Lexer alone, which lexes as marked's own", async () => {
	const cut = keepLexerOnly(original);
	// What kept the Parser, the Renderer and the rest in the bundle: hung on the `marked` function as properties.
	assert.match(original, /\.Parser=/);
	assert.doesNotMatch(cut, /\.Parser=|\.Renderer=/);
	const file = join(tempDir("skiff-marked-"), "marked-lexer.mjs");
	writeFileSync(file, cut);
	const module = (await import(pathToFileURL(file).href)) as { Lexer: typeof Lexer };
	assert.deepEqual(Object.keys(module), ["Lexer"]);
	// Each Lexer takes its options object over (it adds its tokenizer): one object each.
	for (const options of ['{"gfm":true,"breaks":true}', '{"gfm":false}', '{"pedantic":true,"gfm":false}']) {
		assert.deepEqual(new module.Lexer(JSON.parse(options)).lex(SAMPLE), new Lexer(JSON.parse(options)).lex(SAMPLE), options);
	}
});

test("the build's module runs marked's code on the first new Lexer, not as it loads, and lexes as marked's own", async () => {
	// A statement put first in marked's code counts its runs: none as the module loads, one for any number of lexers.
	const built = lexerOnFirstUse(`globalThis.markedRuns=(globalThis.markedRuns??0)+1;${foldUnsetOptions(keepLexerOnly(original))}`);
	const file = join(tempDir("skiff-marked-"), "marked-lazy.mjs");
	writeFileSync(file, built);
	const runs = () => (globalThis as { markedRuns?: number }).markedRuns ?? 0;
	const module = (await import(pathToFileURL(file).href)) as { Lexer: typeof Lexer };
	assert.deepEqual(Object.keys(module), ["Lexer"]);
	assert.equal(runs(), 0, "not run as the module loads");
	const options = '{"gfm":true,"breaks":true}';
	assert.deepEqual(new module.Lexer(JSON.parse(options)).lex(SAMPLE), new Lexer(JSON.parse(options)).lex(SAMPLE));
	assert.deepEqual(new module.Lexer(JSON.parse(options)).lex(SAMPLE), new Lexer(JSON.parse(options)).lex(SAMPLE));
	assert.equal(runs(), 1, "run once, on first use");
	assert.throws(() => lexerOnFirstUse("var a=1;export{a as Lexer,b as Parser};", "/x/marked.esm.js"), /\/x\/marked\.esm\.js: the cut module does not end by exporting its Lexer alone/);
});

test("a marked of another shape fails the build with a sentence naming the file", () => {
	assert.throws(() => keepLexerOnly("var a=1;", "/x/marked.esm.js"), /\/x\/marked\.esm\.js: no export list; marked's module no longer has the shape/);
	assert.throws(() => keepLexerOnly("class A{}export{A as Marked};"), /no export named Lexer/);
	assert.throws(() => keepLexerOnly("class A{}class B{}export{A as Marked,B as Lexer};"), /no default Marked instance/);
});

/** Emphasis, links and lists in the shapes where marked's pedantic rules differ from its others. */
const EDGES = [
	"*a **b** c* _d __e__ f_ ***g*** a*b*c a_b_c **x*y*z** __a_b_c__ *unclosed **open",
	"[a](<b c> \"t\") [x]: y\n[x] ![i](j 'k') [l](m(n)o) <a@b.co> www.example.com/x?y=1 https://a.b/c).",
	"#no space\n## closed ##\n  - a\n * b\n\t- c\n1) d\n2. e\n\n10. f\n",
	"line one\nline two  \nthree\\\nfour\n\n<span>inline</span> &copy; ~~a~b~~ ~c~",
	"```\nfenced\n~~~\n\n    code\n\tmore\n",
].join("\n\n");

test("without what serves options the page never sets (pedantic, extensions, hooks, silent), the cut Lexer lexes as marked's own", async () => {
	const cut = foldUnsetOptions(keepLexerOnly(original));
	assert.match(original, /pedantic:[\w$]+\}/);
	assert.doesNotMatch(cut, /pedantic:[\w$]+\}|this\.options\.(pedantic|extensions|hooks|silent)/);
	assert.ok(cut.length < keepLexerOnly(original).length - 2000, "the pedantic rules are gone");
	const file = join(tempDir("skiff-marked-"), "marked-lexer.mjs");
	writeFileSync(file, cut);
	const module = (await import(pathToFileURL(file).href)) as { Lexer: typeof Lexer };
	for (const options of ['{"gfm":true,"breaks":true}', '{"gfm":true}', '{"gfm":false}', '{"gfm":false,"breaks":true}']) {
		for (const text of [SAMPLE, EDGES]) assert.deepEqual(new module.Lexer(JSON.parse(options)).lex(text), new Lexer(JSON.parse(options)).lex(text), options);
	}
});

test("a marked whose options have another shape fails the build with a sentence naming the file", () => {
	assert.throws(() => foldUnsetOptions("var a={normal:1,gfm:2};export{a as Lexer};", "/x/marked.esm.js"), /\/x\/marked\.esm\.js: 0 rule tables with a pedantic entry, not 2; marked's module no longer has the shape/);
	assert.throws(() => foldUnsetOptions("var p={},q={},a={normal:1,gfm:2,pedantic:p},b={normal:1,gfm:2,breaks:3,pedantic:q};export{a as A,b as B};"), /too few reads of this\.options\.pedantic/);
});
