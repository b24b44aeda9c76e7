/**
 * A Vite plugin that keeps only marked's Lexer. The page tokenizes markdown with `new Lexer()` and builds its own
 * elements (web/src/render/markdown-stream.ts), but marked's one module ends by building the `marked` function
 * object (a Marked instance, with the Parser, the Renderer, the TextRenderer and the Hooks hung on it as
 * properties): statements the bundler must keep, and with them about 11 KB of code (3 KB gzipped) the page never
 * runs. This cuts them from the module as it is bundled, so that only the Lexer and what it uses stay.
 *
 * It works on marked's published file, whose names are minified: it finds them from the module's own export list
 * rather than by name, and throws when the file no longer has the shape it expects (a new marked), so the build
 * fails instead of shipping a broken lexer.
 */
import type { Plugin } from "vite";
import { foldUnsetOptions } from "./marked-unset-options.js";

const MARKED_FILE = /[\\/]node_modules[\\/]marked[\\/]lib[\\/]marked\.esm\.js$/;

/** marked's module with everything after its classes (the `marked` instance and function) cut, exporting only Lexer. */
export function keepLexerOnly(code: string, file = "marked.esm.js"): string {
	const fail = (what: string) => new Error(`${file}: ${what}; marked's module no longer has the shape web/marked-lexer-only.ts expects`);
	const exportAt = code.lastIndexOf("export{");
	if (exportAt < 0) throw fail("no export list");
	const specifiers = code.slice(exportAt + "export{".length, code.indexOf("}", exportAt)).split(",");
	const local = (name: string) => {
		const found = specifiers.map((s) => s.trim().split(/\s+as\s+/)).find(([, exported]) => exported === name);
		if (!found?.[0]) throw fail(`no export named ${name}`);
		return found[0];
	};
	const lexer = local("Lexer");
	// The default instance is the first statement after the classes: `var <name>=new <Marked>;`.
	const instance = code.indexOf(`=new ${local("Marked")};`);
	const cutAt = instance < 0 ? -1 : code.lastIndexOf("var ", instance);
	if (cutAt < 0 || cutAt > exportAt) throw fail("no default Marked instance before the export list");
	return `${code.slice(0, cutAt)}export{${lexer} as Lexer};\n`;
}

/**
 * The cut module (`…export{<name> as Lexer};`) run on first use, as the first `new Lexer()` is made, rather than as
 * the page starts: building marked's rules was most of the script's run (4 to 5 ms of 7), which the page's first
 * bind waits for (its flight goes out once the script has run), and an empty session never lexes at its start.
 */
export function lexerOnFirstUse(code: string, file = "marked.esm.js"): string {
	const exportAt = code.lastIndexOf("export{");
	const lexer = /^export\{([\w$]+) as Lexer\};\s*$/.exec(code.slice(exportAt))?.[1];
	if (exportAt < 0 || !lexer) throw new Error(`${file}: the cut module does not end by exporting its Lexer alone (web/marked-lexer-only.ts)`);
	return `let made;const make=()=>{${code.slice(0, exportAt)}return ${lexer}};export function Lexer(options){return new(made??=make())(options)}\n`;
}

export function markedLexerOnly(): Plugin {
	return {
		name: "marked-lexer-only",
		transform(code, id) {
			return MARKED_FILE.test(id) ? { code: lexerOnFirstUse(foldUnsetOptions(keepLexerOnly(code, id), id), id), map: null } : undefined;
		},
	};
}
