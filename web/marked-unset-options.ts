/**
 * Takes out of marked's Lexer what serves options the page never sets (web/src/render/markdown-stream.ts lexes
 * GFM with line breaks): the "pedantic" mode (the original markdown.pl's rules), extensions, hooks and the silent
 * mode. marked builds its pedantic block and inline rules as its module loads, each a chain of calls that
 * assembles a regular expression, and the bundler keeps calls; its lexer and tokenizer branch on these options
 * throughout. This turns their reads (`this.options.pedantic` and the like) into the value they have on the
 * page (`false`, or `null` for none), so the minifier folds the branches away as they would have gone, drops the
 * `pedantic` entries of the two rule tables, and then the module's top-level declarations that only they used:
 * about 3.5 KB of script, 0.9 KB gzipped.
 *
 * Like web/marked-lexer-only.ts it works on marked's published, minified file, by its syntax tree rather than
 * by names, and throws when the file does not have the shape it expects.
 */
import { parseAst } from "rolldown/parseAst";

interface Node {
	type: string;
	start: number;
	end: number;
	[key: string]: unknown;
}

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && typeof (value as Node).type === "string";

/** Every node of the tree, each with its parent. */
function walk(node: Node, each: (node: Node, parent: Node | undefined) => void, parent?: Node): void {
	each(node, parent);
	for (const value of Object.values(node)) {
		for (const child of Array.isArray(value) ? value : [value]) if (isNode(child)) walk(child, each, node);
	}
}

const keyName = (node: Node) => (node.type === "Property" && !node.computed && isNode(node.key) && node.key.type === "Identifier" ? (node.key.name as string) : undefined);

/** How many times each name is read (a property's or member's own name is not a read; an inner binding of the same name counts, which only ever keeps more). */
function reads(program: Node, topLevel: Set<Node>): Map<string, number> {
	const counts = new Map<string, number>();
	walk(program, (node, parent) => {
		if (node.type !== "Identifier" || topLevel.has(node)) return;
		if (parent && !parent.computed && (parent.type === "MemberExpression" ? parent.property === node : ["Property", "MethodDefinition", "PropertyDefinition"].includes(parent.type) && parent.key === node && !parent.shorthand)) return;
		counts.set(node.name as string, (counts.get(node.name as string) ?? 0) + 1);
	});
	return counts;
}

/** The program's top-level `var`/`let`/`const` declarations. */
const declarations = (program: Node) => (program.body as Node[]).filter((statement) => statement.type === "VariableDeclaration");

function edit(code: string, edits: { start: number; end: number; text: string }[]): string {
	for (const { start, end, text } of edits.sort((a, b) => b.start - a.start)) code = code.slice(0, start) + text + code.slice(end);
	return code;
}

/** What each option the page never sets stands for where it is read: all are unset (undefined), read only as true or false, or with `?.`. */
const UNSET: Record<string, string> = { pedantic: "!1", silent: "!1", extensions: "null", hooks: "null" };

export function foldUnsetOptions(code: string, file = "marked.esm.js"): string {
	const fail = (what: string) => new Error(`${file}: ${what}; marked's module no longer has the shape web/marked-unset-options.ts expects`);
	const program = parseAst(code) as unknown as Node;
	const edits: { start: number; end: number; text: string }[] = [];
	const pedanticRules: string[] = [];
	let folded = 0;
	walk(program, (node) => {
		// The rule tables: { normal, gfm, pedantic } (block) and { normal, gfm, breaks, pedantic } (inline).
		if (node.type === "ObjectExpression") {
			const properties = node.properties as Node[];
			const names = properties.map(keyName).join();
			if (names !== "normal,gfm,pedantic" && names !== "normal,gfm,breaks,pedantic") return;
			const pedantic = properties.at(-1)!;
			if (!isNode(pedantic.value) || pedantic.value.type !== "Identifier") throw fail("a pedantic rule table that is not a name");
			pedanticRules.push(pedantic.value.name as string);
			edits.push({ start: properties.at(-2)!.end, end: pedantic.end, text: "" });
		}
		// this.options.pedantic and the others, only ever read.
		const name = node.type === "MemberExpression" && !node.computed && isNode(node.property) ? (node.property.name as string) : "";
		const option = Object.hasOwn(UNSET, name) ? UNSET[name] : undefined;
		if (option) {
			const object = node.object as Node;
			if (object.type === "MemberExpression" && (object.object as Node).type === "ThisExpression" && (object.property as Node).name === "options") {
				folded++;
				edits.push({ start: node.start, end: node.end, text: option });
			}
		}
	});
	if (pedanticRules.length !== 2) throw fail(`${pedanticRules.length} rule tables with a pedantic entry, not 2`);
	if (folded < 10) throw fail("too few reads of this.options.pedantic and the like");
	const before = reads(program, new Set(declarations(program).flatMap((d) => (d.declarations as Node[]).map((v) => v.id as Node))));
	code = edit(code, edits);
	// Drop what only the dropped code read (read before, read no more), until nothing more goes.
	for (;;) {
		const tree = parseAst(code) as unknown as Node;
		const statements = declarations(tree);
		const ids = new Set(statements.flatMap((d) => (d.declarations as Node[]).map((v) => v.id as Node)));
		const now = reads(tree, ids);
		const unread = (v: Node) => {
			const id = v.id as Node;
			return id.type === "Identifier" && (before.get(id.name as string) ?? 0) > 0 && !now.has(id.name as string);
		};
		const removals = statements.flatMap((statement) => {
			const all = statement.declarations as Node[];
			const kept = all.filter((v) => !unread(v));
			if (kept.length === all.length) return [];
			const end = code[statement.end - 1] === ";" ? ";" : "";
			const text = kept.length ? `${statement.kind as string} ${kept.map((v) => code.slice(v.start, v.end)).join(",")}${end}` : "";
			return [{ start: statement.start, end: statement.end, text }];
		});
		if (!removals.length) break;
		code = edit(code, removals);
	}
	const left = reads(parseAst(code) as unknown as Node, new Set());
	for (const name of pedanticRules) if (left.has(name)) throw fail(`the pedantic rules ${name} are still declared or read`);
	return code;
}
