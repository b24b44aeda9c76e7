/**
 * Short names for the page's CSS custom properties in the built document: `var(--space-2)` and its 1,200 fellows
 * become `var(--b)`, about 0.45 KB of the gzipped page (issue 21 wants it ≤ 100 KB). The sources keep their
 * readable names (styles/tokens.css); the names are only ever the page's own, as the style declares every one it
 * reads, so a consistent renaming changes nothing the page draws.
 *
 * It runs on the finished document (after vite-plugin-singlefile has inlined the style and the script) and
 * renames a declared name wherever the style has it, and in the script only where the script names a property
 * as the style would: in `var(--name` (an inline style it writes) or as a whole string literal (`--name`, what it
 * reads with getPropertyValue). A declared name anywhere else in the script (a sentence that happens to hold
 * `--line`, say) fails the build rather than being renamed or left to miss.
 */
import type { Plugin } from "vite";

/** A custom property's name where it stands alone: not inside a longer name, nor a run of dashes. */
const NAME = /(?<![\w-])--[A-Za-z][\w-]*(?![\w-])/g;

/** `--a` … `--Z`, then `--aa` …: the shortest names, first to the most used (skipping any the document already has). */
function shortName(index: number): string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	let name = "";
	for (let n = index; ; n = Math.floor(n / letters.length) - 1) {
		name = letters[n % letters.length] + name;
		if (n < letters.length) return `--${name}`;
	}
}

/** The document with its style's custom properties renamed (see above); throws naming what it cannot rename safely. */
export function shortenCustomProperties(html: string): string {
	const styleAt = html.indexOf("<style");
	const styleEnd = html.indexOf("</style>", styleAt);
	if (styleAt < 0 || styleEnd < 0 || html.indexOf("<style", styleEnd) >= 0) throw new Error("web/css-variable-names.ts: the document does not hold its style in one <style> element");
	const style = html.slice(styleAt, styleEnd);
	const declared = new Set(Array.from(style.matchAll(/(?<![\w-])(--[A-Za-z][\w-]*)\s*:/g), (match) => match[1]!));
	const uses = new Map<string, number>();
	for (const [name] of style.matchAll(NAME)) if (declared.has(name)) uses.set(name, (uses.get(name) ?? 0) + 1);
	const taken = new Set(Array.from(html.matchAll(NAME), (match) => match[0]));
	const free = (function* () {
		for (let index = 0; ; index++) if (!taken.has(shortName(index))) yield shortName(index);
	})();
	const short = new Map([...uses].sort((a, b) => b[1] - a[1]).map(([name]) => [name, free.next().value as string]));
	const rest = html.slice(0, styleAt) + html.slice(styleEnd);
	for (const match of rest.matchAll(NAME)) {
		if (!short.has(match[0])) continue;
		const before = rest.slice(Math.max(0, match.index - 4), match.index);
		const after = rest[match.index + match[0].length];
		const quoted = /[`"']$/.test(before) && after === before.at(-1);
		if (!before.endsWith("var(") && !quoted) {
			throw new Error(`web/css-variable-names.ts: the script has the style's ${match[0]} outside var(…) and a string of its own (…${rest.slice(Math.max(0, match.index - 30), match.index + 40)}…): rename it by hand or teach this plugin`);
		}
	}
	return html.replace(NAME, (name) => short.get(name) ?? name);
}

export function cssVariableNames(): Plugin {
	return {
		name: "css-variable-names",
		apply: "build",
		enforce: "post",
		generateBundle: {
			order: "post",
			handler(_options, bundle) {
				const page = bundle["index.html"];
				if (page?.type !== "asset") throw new Error("web/css-variable-names.ts: the build made no index.html");
				page.source = shortenCustomProperties(String(page.source));
			},
		},
	};
}
