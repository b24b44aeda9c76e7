/**
 * The bundle bin/skiff runs (scripts/bundle.mjs, built by `npm run build`): what loads at start-up leaves out
 * the code loaded on first use, and modules that find their own files still find them where npm put them.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../../support/skiff-process.js";

const BUNDLE = join(REPO_ROOT, "dist", "bundle");

interface Metafile {
	outputs: Record<string, { imports: Array<{ path: string; kind: string }>; inputs: Record<string, unknown> }>;
}

const meta = (): Metafile => JSON.parse(readFileSync(join(BUNDLE, "meta.json"), "utf8")) as Metafile;

/** The inputs of every chunk loaded before the service is ready: main.js, what it imports, and the core it loads. */
function startUpInputs(metafile: Metafile): string[] {
	const outputs = metafile.outputs;
	const main = Object.keys(outputs).find((path) => path.endsWith("/main.js"))!;
	const seen = new Set<string>();
	const visit = (path: string) => {
		if (seen.has(path) || !outputs[path]) return;
		seen.add(path);
		for (const i of outputs[path].imports) if (i.kind === "import-statement") visit(i.path);
	};
	visit(main);
	for (const i of outputs[main].imports) if (i.kind === "dynamic-import" && /\/core-[^/]+\.js$/.test(i.path)) visit(i.path);
	return [...seen].flatMap((path) => Object.keys(outputs[path].inputs));
}

test("bin/skiff runs the bundle", () => {
	assert.match(readFileSync(join(REPO_ROOT, "bin", "skiff"), "utf8"), /import\("\.\.\/dist\/bundle\/main\.js"\)/);
	assert.ok(existsSync(join(BUNDLE, "main.js")), "npm run build writes dist/bundle/main.js");
});

test("start-up loads neither the extension loader's jiti nor the terminal's syntax highlighter, nor a model provider", () => {
	const inputs = startUpInputs(meta());
	assert.ok(inputs.some((input) => input.includes("node_modules/@mariozechner/pi-coding-agent/")), "pi is in the start-up chunks");
	for (const lazy of ["node_modules/jiti/", "node_modules/cli-highlight/", "node_modules/highlight.js/", "node_modules/parse5/", "node_modules/openai/", "node_modules/@anthropic-ai/"]) {
		assert.deepEqual(
			inputs.filter((input) => input.includes(lazy)),
			[],
			`${lazy} loads at start-up`,
		);
	}
});

test("modules that read their own files are pointed at their installed copies", () => {
	const bundled = readFileSync(join(BUNDLE, Object.keys(meta().outputs).find((p) => /\/core-[^/]+\.js$/.test(p))!.split("/").pop()!), "utf8");
	// pi's config reads its package.json from its own folder, and the HTML export its template.
	assert.match(bundled, /"@mariozechner\/pi-coding-agent\/dist\/config\.js"/);
	assert.ok(existsSync(join(REPO_ROOT, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "config.js")));
	// What pi's modules did with their own URL now gets the original file's: no folder is taken from the bundle's.
	assert.doesNotMatch(bundled, /fileURLToPath\(import\.meta\.url\)/);
	assert.doesNotMatch(bundled, /[^_]createRequire\(import\.meta\.url\)/);
});
