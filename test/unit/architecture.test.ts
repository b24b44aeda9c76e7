/**
 * The layering of docs/architecture.md, checked on every import (type-only and side-effect imports included):
 * each rule of the document's "Import rules" list is one row of RULES below, and the document and the table must
 * name the same rules. Every rule proves in a self-check that it catches a violation planted for it, so a rule
 * that matches nothing cannot pass unnoticed.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";

const ROOT = resolve(import.meta.dirname, "../..");

/** Every TypeScript file under `dir`, as repository-relative paths. */
function sources(dir: string): string[] {
	const out: string[] = [];
	for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) out.push(...sources(path));
		else if (/\.tsx?$/.test(entry.name)) out.push(path);
	}
	return out;
}

const SPECIFIERS = [
	/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/g, // import … from, export … from (type-only too)
	/(?:^|\n)\s*import\s*["']([^"']+)["']/g, // side-effect imports
	/\bimport\(\s*["']([^"']+)["']\s*\)/g, // dynamic imports
];

/** What a file's text imports: package names as written, relative imports as repository-relative paths without extension. */
function importsIn(file: string, text: string): string[] {
	const specifiers = SPECIFIERS.flatMap((pattern) => [...text.matchAll(pattern)].map((m) => m[1]!));
	return specifiers.map((s) => (s.startsWith(".") ? withoutExtension(relative(ROOT, resolve(ROOT, dirname(file), s))) : s));
}

const withoutExtension = (path: string) => path.replace(/\.(js|ts|tsx|jsx|mjs)$/, "");

/** The import graph: file (without extension) → what it imports. */
type Graph = Map<string, string[]>;

function graphOf(dirs: string[]): Graph {
	const graph: Graph = new Map();
	for (const file of dirs.flatMap(sources)) graph.set(withoutExtension(file), importsIn(file, readFileSync(join(ROOT, file), "utf8")));
	return graph;
}

/** `path` is `dir` itself or inside it. */
const inside = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);
const under =
	(...dirs: string[]) =>
	(path: string) =>
		dirs.some((dir) => inside(path, dir));
const isPi = (target: string) => target.startsWith("@mariozechner/");
/** The feature folder a path lies in (`src/features/todo/...` → `todo`), if any. */
const featureOf = (path: string) => /^src\/features\/([^/]+)\//.exec(path)?.[1];
/** The composition's own files, which no layer below may import. */
const COMPOSITION = ["src/core", "src/contract", "src/service", "src/cli"];

interface Rule {
	/** As docs/architecture.md states it (the text after the rule's bullet). */
	readonly says: string;
	/** Files the rule applies to. */
	readonly from: (file: string) => boolean;
	/** An import the rule forbids for `file`. */
	readonly forbids: (target: string, file: string) => boolean;
	/** A violation the rule must catch: a file and what it imports. */
	readonly planted: { file: string; imports: string };
}

const RULES: Rule[] = [
	{
		says: "only `src/agent/pi/` imports pi",
		from: (file) => !inside(file, "src/agent/pi"),
		forbids: isPi,
		planted: { file: "src/protocol/planted", imports: "@mariozechner/pi-coding-agent" },
	},
	{
		says: "shared (`src/shared/`) imports nothing else of `src/`",
		from: under("src/shared"),
		forbids: (target) => target.startsWith("src/") && !inside(target, "src/shared"),
		planted: { file: "src/shared/planted", imports: "src/protocol/command" },
	},
	{
		says: "the client (`src/client/`) imports nothing outside itself; only its Node entry imports a package (`ws`)",
		from: under("src/client"),
		forbids: (target, file) => !inside(target, "src/client") && !(file === "src/client/node" && target === "ws"),
		planted: { file: "src/client/planted", imports: "src/shared/redact" },
	},
	{
		says: "the runtime (`src/agent/`) imports no layer above it: not the protocol, settings, features, collaboration, transports or composition",
		from: under("src/agent"),
		forbids: under("src/protocol", "src/settings", "src/features", "src/collab", "src/listener", "src/stdio", ...COMPOSITION),
		planted: { file: "src/agent/planted", imports: "src/features/todo/index" },
	},
	{
		says: "the protocol (`src/protocol/`) imports only the runtime's interfaces (never the pi adapter) and shared helpers: no settings, feature, collaboration or transport",
		from: under("src/protocol"),
		forbids: under("src/agent/pi", "src/settings", "src/features", "src/collab", "src/listener", "src/stdio", ...COMPOSITION),
		planted: { file: "src/protocol/planted", imports: "src/features/todo/index" },
	},
	{
		says: "settings (`src/settings/`) import no feature, collaboration, transport or the pi adapter",
		from: under("src/settings"),
		forbids: under("src/agent/pi", "src/features", "src/collab", "src/listener", "src/stdio", ...COMPOSITION),
		planted: { file: "src/settings/planted", imports: "src/features/memory/index" },
	},
	{
		says: "collaboration (`src/collab/`: rooms, crypto, the guests' view) knows neither the runtime, settings, features nor a transport",
		from: under("src/collab"),
		forbids: under("src/agent", "src/settings", "src/features", "src/listener", "src/stdio", ...COMPOSITION),
		planted: { file: "src/collab/planted", imports: "src/agent/types" },
	},
	{
		says: "features import no transport, the pi adapter or the composition",
		from: under("src/features"),
		forbids: under("src/agent/pi", "src/listener", "src/stdio", ...COMPOSITION),
		planted: { file: "src/features/todo/planted", imports: "src/listener/server" },
	},
	{
		says: "a feature reaches another feature only through its `index.ts`",
		from: (file) => featureOf(file) !== undefined,
		forbids: (target, file) => {
			const other = featureOf(target);
			return other !== undefined && other !== featureOf(file) && target !== `src/features/${other}/index`;
		},
		planted: { file: "src/features/personas/planted", imports: "src/features/memory/local-store" },
	},
	{
		says: "a feature never imports the feature list or how features are started and given to sessions",
		from: (file) => featureOf(file) !== undefined,
		forbids: (target) => ["src/features/index", "src/features/start", "src/features/session-policy"].includes(target),
		planted: { file: "src/features/todo/planted", imports: "src/features/index" },
	},
	{
		says: "transports (`src/listener/`, `src/stdio/`) know nothing of the runtime, settings or features, and the listener never imports the other transport",
		from: under("src/listener", "src/stdio"),
		forbids: (target, file) =>
			under("src/agent", "src/settings", "src/features", ...COMPOSITION)(target) || (inside(file, "src/listener") ? inside(target, "src/stdio") : inside(target, "src/listener")),
		planted: { file: "src/listener/planted", imports: "src/features/collab/commands" },
	},
	{
		says: "the CLI never imports the pi adapter",
		from: under("src/cli"),
		forbids: under("src/agent/pi"),
		planted: { file: "src/cli/planted", imports: "src/agent/pi/index" },
	},
	{
		says: "the page (`web/`) imports nothing of the service but shared helpers and the client (never its Node entry, never `ws`)",
		from: under("web"),
		forbids: (target) => (target.startsWith("src/") && !under("src/shared", "src/client")(target)) || target === "src/client/node" || target === "ws",
		planted: { file: "web/src/planted", imports: "src/protocol/command" },
	},
];

/** `file -> import` lines of the rule's violations in `graph`. */
function violations(rule: Rule, graph: Graph): string[] {
	return [...graph].filter(([file]) => rule.from(file)).flatMap(([file, imports]) => imports.filter((t) => rule.forbids(t, file)).map((t) => `${file} -> ${t}`));
}

/** Import loops among the files of `graph`, each as `a -> b -> … -> a` (one per strongly connected group). */
function loops(graph: Graph): string[] {
	const found: string[] = [];
	const state = new Map<string, "open" | "done">();
	const path: string[] = [];
	const visit = (file: string) => {
		state.set(file, "open");
		path.push(file);
		for (const next of graph.get(file) ?? []) {
			if (!graph.has(next)) continue;
			if (state.get(next) === "open") found.push([...path.slice(path.indexOf(next)), next].join(" -> "));
			else if (!state.has(next)) visit(next);
		}
		path.pop();
		state.set(file, "done");
	};
	for (const file of graph.keys()) if (!state.has(file)) visit(file);
	return found;
}

const GRAPH = graphOf(["src", "web/src"]);

for (const rule of RULES) {
	test(`import rule: ${rule.says}`, () => {
		assert.deepEqual(violations(rule, GRAPH), []);
	});
}

test("no imports form a loop, in the service or the page", () => {
	assert.deepEqual(loops(GRAPH), []);
});

test("docs/architecture.md states exactly the rules this test holds", () => {
	const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
	const section = /## Import rules\n([\s\S]*?)(?=\n## |$)/.exec(doc)?.[1];
	assert.ok(section, "docs/architecture.md has an `## Import rules` section");
	const stated = [...section.matchAll(/^- (.+(?:\n {2}.+)*)/gm)].map((m) => m[1]!.replace(/\n\s+/g, " ").trim());
	const held = [...RULES.map((rule) => rule.says), "no imports form a loop"];
	assert.deepEqual(stated, held.map((says) => `${says[0]!.toUpperCase()}${says.slice(1)}.`));
});

test("self-check: each rule catches the violation planted for it, and the loop check catches a planted loop", () => {
	for (const rule of RULES) {
		const planted = new Map(GRAPH).set(rule.planted.file, [rule.planted.imports]);
		assert.deepEqual(violations(rule, planted), [`${rule.planted.file} -> ${rule.planted.imports}`], rule.says);
	}
	const looped = new Map(GRAPH).set("src/shared/a", ["src/shared/b"]).set("src/shared/b", ["src/shared/a"]);
	assert.deepEqual(loops(looped), ["src/shared/a -> src/shared/b -> src/shared/a"]);
});

test("self-check: the reader sees every kind of import (a guard against patterns that match nothing)", () => {
	const text = [
		'import type { A } from "../agent/types.js";',
		'import "../features/todo/index.js";',
		'export { B } from "./b.js";',
		"const c = await import('../protocol/c.js');",
		"import {\n\tD,\n\tE,\n} from \"node:fs\";",
	].join("\n");
	assert.deepEqual(importsIn("src/x/file.ts", text).sort(), ["node:fs", "src/agent/types", "src/features/todo/index", "src/protocol/c", "src/x/b"]);
	assert.ok(GRAPH.get("src/core")!.includes("src/agent/pi/index"));
	assert.ok(GRAPH.get("src/service")!.includes("src/core"), "dynamic imports count");
	assert.ok(GRAPH.get("src/agent/pi/open-session")!.includes("@mariozechner/pi-coding-agent"));
	assert.ok(GRAPH.get("src/client/node")!.includes("ws"));
	assert.ok(GRAPH.get("web/src/main")!.some((t) => t.endsWith(".css")), "side-effect imports count");
	assert.ok(GRAPH.get("src/listener/collab-socket")!.includes("src/collab/channel"), "the listener's imports of collaboration are seen");
});
