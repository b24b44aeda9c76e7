/**
 * A small syntax highlighter: comments, strings, numbers and keywords of the languages a coding agent
 * shows most. It returns tokens, rendered as text spans, so highlighted code is never parsed as HTML.
 */

export interface Token {
	kind: "comment" | "string" | "number" | "keyword" | "plain";
	text: string;
}

const KEYWORDS = new Set(
	(
		"abstract as async await break case catch class const continue def default del do elif else enum except export extends " +
		"false final finally fn for from func function go if impl import in interface is lambda let match mod module mut new nil " +
		"none null package pass private protected pub public raise return self static struct super switch this throw true try type " +
		"typeof undefined use var void where while with yield echo fi then done esac local"
	).split(" "),
);

const HASH_COMMENT_LANGS = new Set(["py", "python", "sh", "bash", "shell", "zsh", "rb", "ruby", "yaml", "yml", "toml", "dockerfile", "makefile", "r", "perl", "pl"]);

/** Splits code into tokens; unknown languages get the C-like rules plus `#` comments for shells. */
export function highlight(code: string, language: string): Token[] {
	const lang = language.toLowerCase();
	const hash = HASH_COMMENT_LANGS.has(lang);
	const comment = hash ? String.raw`#[^\n]*` : String.raw`\/\/[^\n]*|\/\*[\s\S]*?\*\/`;
	const pattern = new RegExp(
		`(${comment})|("(?:\\\\.|[^"\\\\\\n])*"|'(?:\\\\.|[^'\\\\\\n])*'|\`(?:\\\\.|[^\`\\\\])*\`)|(\\b\\d[\\d_]*(?:\\.\\d+)?(?:e[+-]?\\d+)?\\b|\\b0x[0-9a-f]+\\b)|([A-Za-z_$][\\w$]*)`,
		"gi",
	);
	const tokens: Token[] = [];
	let last = 0;
	for (const match of code.matchAll(pattern)) {
		const index = match.index ?? 0;
		if (index > last) tokens.push({ kind: "plain", text: code.slice(last, index) });
		const [text, isComment, isString, isNumber, word] = match;
		if (isComment) tokens.push({ kind: "comment", text });
		else if (isString) tokens.push({ kind: "string", text });
		else if (isNumber) tokens.push({ kind: "number", text });
		else if (word && KEYWORDS.has(word)) tokens.push({ kind: "keyword", text });
		else tokens.push({ kind: "plain", text });
		last = index + text.length;
	}
	if (last < code.length) tokens.push({ kind: "plain", text: code.slice(last) });
	return tokens;
}
