/**
 * A fenced or indented code block: the language, a Copy button, and the code highlighted as text spans
 * (highlight.ts returns tokens, so code is never parsed as HTML). Written with `h` rather than JSX so that
 * the unit tests can load the markdown renderer in Node without the page's JSX build settings.
 */
import { h } from "preact";
import { useCopy } from "./copy.js";
import { highlight } from "./highlight.js";

export function CodeBlock({ code, language }: { code: string; language: string }) {
	const [copied, copy] = useCopy();
	const tokens = highlight(code, language).map((t, n) => (t.kind === "plain" ? t.text : h("span", { key: n, class: `tok-${t.kind}` }, t.text)));
	return h(
		"div",
		{ class: "code" },
		h(
			"div",
			{ class: "code-bar" },
			h("span", null, language || "text"),
			h("button", { type: "button", class: "copy", onClick: () => copy(code), "aria-label": "Copy code" }, copied ? "Copied" : "Copy"),
		),
		h("pre", null, h("code", null, tokens)),
	);
}
