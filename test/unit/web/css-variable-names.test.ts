/** The build's short names for the page's CSS custom properties (web/css-variable-names.ts). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { shortenCustomProperties } from "../../../web/css-variable-names.js";

const page = (style: string, script: string) => `<!doctype html><head><style>${style}</style></head><body><script type="module">${script}</script></body>`;

test("declared properties get the shortest names, the most used first, in the style and where the script names them", () => {
	const html = page(
		":root{--space-2:.5rem;--tree-row:34px;--line:#eee}.a{gap:var(--space-2);padding:var(--space-2);border:1px solid var(--line)}.t{height:var(--tree-row)}",
		'getComputedStyle(e).getPropertyValue(`--tree-row`);x.style.paddingLeft=`calc(var(--space-2) + 4px)`;y("--line")',
	);
	assert.equal(
		shortenCustomProperties(html),
		page(":root{--a:.5rem;--b:34px;--c:#eee}.a{gap:var(--a);padding:var(--a);border:1px solid var(--c)}.t{height:var(--b)}", 'getComputedStyle(e).getPropertyValue(`--b`);x.style.paddingLeft=`calc(var(--a) + 4px)`;y("--c")'),
	);
});

test("what is not a declared property stays: undeclared names, longer names, runs of dashes, a loop's decrement", () => {
	const script = "for(;--i>=0;);const k=`-----BEGIN`;run(`--model provider/id`);z(`--space-2x`)";
	const html = page(":root{--space-2:.5rem}.a{gap:var(--space-2);margin:var(--undeclared)}", script);
	assert.equal(shortenCustomProperties(html), page(":root{--a:.5rem}.a{gap:var(--a);margin:var(--undeclared)}", script));
});

test("a short name the document already has is not given to another property", () => {
	const html = page(":root{--long-name:1px}.a{width:var(--long-name);height:var(--a)}", "");
	assert.equal(shortenCustomProperties(html), page(":root{--b:1px}.a{width:var(--b);height:var(--a)}", ""));
});

test("past 52 names the short names take two letters", () => {
	const names = Array.from({ length: 54 }, (_, n) => `--p${n}`);
	const style = `:root{${names.map((name, n) => `${name}:${n}`).join(";")}}`;
	const shortened = shortenCustomProperties(page(style, ""));
	assert.match(shortened, /--Z:\d+;--aa:\d+;--ab:\d+\}/);
});

test("a declared name in the script outside var() and a string of its own fails the build, naming it", () => {
	assert.throws(() => shortenCustomProperties(page(":root{--line:#eee}", "hint(`draw a --line here`)")), /the script has the style's --line outside var/);
	assert.throws(() => shortenCustomProperties("<html><body>no style</body></html>"), /one <style> element/);
	assert.throws(() => shortenCustomProperties(page("a{}", "") + "<style>b{}</style>"), /one <style> element/);
});
