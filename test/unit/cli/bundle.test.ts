/**
 * The bundle bin/skiff runs (scripts/bundle.mjs, built by `npm run build`) and its code cache: what loads at
 * start-up leaves out the code loaded on first use, modules that find their own files still find them where npm put
 * them, and the code cache is used when it fits the build and written when it does not.
 */
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO_ROOT, runSkiff, type SkiffProcess, startSkiff, tempDir } from "../../support/skiff-process.js";
import { startFakeOpenAi, writeFakeModelsJson } from "../../support/fake-openai.js";
import { until } from "../../support/until.js";
import { TestClient } from "../../support/ws-client.js";

const BUNDLE = join(REPO_ROOT, "dist", "bundle");
const SCRIPT = join(BUNDLE, "skiff.cjs");
const CACHE = `${SCRIPT}.cache`;

interface Metafile {
	inputs: Record<string, { imports: Array<{ path: string; kind: string }> }>;
}

const meta = (): Metafile => JSON.parse(readFileSync(join(BUNDLE, "meta.json"), "utf8")) as Metafile;

/** The modules run before the service is ready: what the CLI imports, and the core it loads, with their imports. */
function startUpInputs(metafile: Metafile): Set<string> {
	const seen = new Set<string>();
	const visit = (path: string) => {
		if (seen.has(path) || !metafile.inputs[path]) return;
		seen.add(path);
		for (const i of metafile.inputs[path].imports) {
			if (i.kind !== "dynamic-import" || i.path === "dist/core.js") visit(i.path);
		}
	};
	visit("dist/cli/main.js");
	return seen;
}

/** A copy of the package in `copy` (the bundle without its cache), so the repository's own cache is left alone. */
function copyPackageWithoutCache(copy: string): void {
	cpSync(join(REPO_ROOT, "bin"), join(copy, "bin"), { recursive: true });
	cpSync(join(REPO_ROOT, "dist"), join(copy, "dist"), { recursive: true, filter: (path) => path !== CACHE });
	cpSync(join(REPO_ROOT, "package.json"), join(copy, "package.json"));
	symlinkSync(join(REPO_ROOT, "node_modules"), join(copy, "node_modules"));
}

const firstLine = (buffer: Buffer) => buffer.subarray(0, buffer.indexOf(10) + 1).toString("latin1");

test("bin/skiff runs the bundle from a code cache made from this build", async () => {
	const script = readFileSync(SCRIPT);
	assert.match(firstLine(script), /^\/\/skiff-build [0-9a-f]{32}\n$/);
	assert.ok(existsSync(CACHE), "npm run build writes the code cache");
	assert.equal(firstLine(readFileSync(CACHE)), firstLine(script));
	const run = await runSkiff(["--version"], { SKIFF_CODE_CACHE_DEBUG: "1" });
	assert.equal(run.code, 0, run.stderr);
	assert.match(run.stderr, /^code cache: used$/m);
});

test("a start without a cache that fits its build writes one, which the next start uses", async () => {
	const copy = tempDir("skiff-bundle-copy-");
	try {
		copyPackageWithoutCache(copy);
		const cache = join(copy, "dist", "bundle", "skiff.cjs.cache");
		writeFileSync(cache, "//skiff-build 00000000000000000000000000000000\nnot V8's");
		const agentDir = join(copy, "agent");
		mkdirSync(agentDir);
		const bin = join(copy, "bin", "skiff");
		const env = { SKIFF_CODE_CACHE_DEBUG: "1" };
		const first = await startSkiff({ bin, agentDir, cwd: copy, env });
		await until(() => /^code cache: written$/m.test(first.stderr()), () => `the cache to be written; stderr: ${first.stderr()}`);
		assert.match(first.stderr(), /^code cache: none for this build$/m);
		assert.equal(await first.stop(), 0);
		assert.equal(firstLine(readFileSync(cache)), firstLine(readFileSync(SCRIPT)));

		const second = await runSkiff(["--version"], env, bin);
		assert.equal(second.code, 0, second.stderr);
		assert.match(second.stderr, /^code cache: used$/m);
	} finally {
		rmSync(copy, { recursive: true, force: true });
	}
});

test("a cache written after the first run started (the young generation let grow) still fits the next start", async () => {
	const copy = tempDir("skiff-bundle-copy-");
	const model = await startFakeOpenAi();
	let first: SkiffProcess | undefined;
	let client: TestClient | undefined;
	try {
		copyPackageWithoutCache(copy);
		const cache = join(copy, "dist", "bundle", "skiff.cjs.cache");
		const agentDir = join(copy, "agent");
		mkdirSync(agentDir);
		writeFakeModelsJson(agentDir, model.url);
		const bin = join(copy, "bin", "skiff");
		// The cache is written 6 s after the start (2 s by default), so that the run below has started before.
		first = await startSkiff({ bin, agentDir, cwd: copy, env: { SKIFF_CODE_CACHE_DEBUG: "1", SKIFF_CODE_CACHE_WRITE_MS: "6000" }, args: ["--model", "fake/fake-model"] });
		client = await TestClient.connect(first.wsUrl);
		await client.ok({ type: "prompt", message: "REPLY done" });
		await client.waitForEvent((e) => e.type === "agent_end");
		assert.doesNotMatch(first.stderr(), /^code cache: written$/m, "the run started before the cache was written");
		await until(() => /^code cache: written$/m.test(first!.stderr()), () => `the cache to be written; stderr: ${first!.stderr()}`);
		assert.equal(firstLine(readFileSync(cache)), firstLine(readFileSync(SCRIPT)));
		const second = await runSkiff(["--version"], { SKIFF_CODE_CACHE_DEBUG: "1" }, bin);
		assert.equal(second.code, 0, second.stderr);
		assert.match(second.stderr, /^code cache: used$/m);
	} finally {
		client?.close();
		await first?.stop();
		await model.close();
		rmSync(copy, { recursive: true, force: true });
	}
});

test("start-up runs neither the extension loader's jiti nor the terminal's syntax highlighter, nor a model provider", () => {
	const metafile = meta();
	const inputs = Object.keys(metafile.inputs);
	// Required from node_modules on first use (the providers' SDKs are tested in integration/providers.test.ts).
	for (const notBundled of ["jiti/", "cli-highlight/", "highlight.js/", "parse5/", "openai/", "@anthropic-ai/", "@google/genai/", "@mistralai/", "zod/"]) {
		assert.deepEqual(
			inputs.filter((input) => input.includes(`node_modules/${notBundled}`)),
			[],
			`${notBundled} is bundled`,
		);
	}
	const startUp = [...startUpInputs(metafile)];
	assert.ok(startUp.some((input) => input.includes("node_modules/@mariozechner/pi-coding-agent/")), "pi runs at start-up");
	const providers = inputs.filter((input) => input.includes("node_modules/@mariozechner/pi-ai/dist/providers/"));
	assert.ok(providers.some((input) => input.endsWith("/anthropic.js")), "pi-ai's providers are in the bundle, for first use");
	assert.deepEqual(
		startUp.filter((input) => /\/providers\/(anthropic|google|mistral|openai-completions|openai-responses)\.js$/.test(input)),
		[],
		"a provider runs at start-up",
	);
});

test("modules that read their own files are pointed at their installed copies", () => {
	const bundled = readFileSync(SCRIPT, "latin1");
	// pi's config reads its package.json from its own folder, and the HTML export its template.
	assert.match(bundled, /"@mariozechner\/pi-coding-agent\/dist\/config\.js"/);
	assert.ok(existsSync(join(REPO_ROOT, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "config.js")));
	// No module is left with the bundle's own URL, and nothing needs an ES module loader.
	assert.doesNotMatch(bundled, /import\.meta/);
	// (One error message quotes `import('node:buffer')` in backticks.)
	assert.doesNotMatch(bundled, /(?<![\w$.`])import\(\s*["'`\w$]/);
});

test("the bundle's edits of pi (SOURCE_EDITS): the segmenter, its regexes and the theme validator made on first use, pi's terminal modes left out", () => {
	const bundled = readFileSync(SCRIPT, "latin1");
	// The terminal's grapheme segmenter (ICU's break rules) and the theme files' validator.
	assert.match(bundled, /__skiffSegmenter\?\?=new Intl\.Segmenter\(/);
	assert.equal(bundled.match(/new Intl\.Segmenter\(/g)?.length, 1, "the segmenter is made in one place, on first use");
	// Its Unicode property regexes, made together on first use, and nowhere else.
	assert.match(bundled, /__skiffWidthRegexes\?\?=\{zeroWidthRegex:\//);
	assert.equal(bundled.match(/\\p\{RGI_Emoji\}/g)?.length, 1);
	assert.match(bundled, /__skiffThemeCheck\?\?=Compile\(ThemeJsonSchema\)/);
	assert.doesNotMatch(bundled, /validateThemeJson=Compile\(/);
	// What only the Bun binary's extension loader referenced: pi's interactive, RPC and print modes and its CLI.
	const output = JSON.parse(readFileSync(join(BUNDLE, "meta.json"), "utf8")).outputs as Record<string, { inputs: Record<string, unknown> }>;
	const inputs = Object.values(output).flatMap((file) => Object.keys(file.inputs));
	for (const leftOut of ["/modes/interactive/interactive-mode.js", "/modes/rpc/rpc-mode.js", "/modes/print-mode.js", "/pi-coding-agent/dist/main.js", "/pi-tui/dist/components/editor.js"]) {
		assert.deepEqual(inputs.filter((input) => input.endsWith(leftOut)), [], `${leftOut} is bundled`);
	}
	// pi-ai's providers register as their modules load: not left out.
	assert.ok(inputs.some((input) => input.endsWith("/pi-ai/dist/providers/register-builtins.js")));
});

test("the bundle's edit of pi's model registry: models.json is checked by TypeBox's dynamic checker, not compiled as the module loads", () => {
	const bundled = readFileSync(SCRIPT, "latin1");
	assert.doesNotMatch(bundled, /validateModelsConfig=Compile\(/);
	assert.match(bundled, /validateModelsConfig=\{Check:value=>\w+\(ModelsConfigSchema,value\),Errors:value=>\w+\(ModelsConfigSchema,value\)\}/);
});

test("a start that cannot write its code cache (the install folder refuses it) still starts and answers", async () => {
	const copy = tempDir("skiff-bundle-copy-");
	let skiff: SkiffProcess | undefined;
	let client: TestClient | undefined;
	try {
		copyPackageWithoutCache(copy);
		// A folder where the cache file would go: reading it fails, and so does putting a file in its place (as in
		// a read-only install, which the tests, run as any user, cannot make for themselves).
		mkdirSync(join(copy, "dist", "bundle", "skiff.cjs.cache", "in-the-way"), { recursive: true });
		const agentDir = join(copy, "agent");
		mkdirSync(agentDir);
		skiff = await startSkiff({ bin: join(copy, "bin", "skiff"), agentDir, cwd: copy, env: { SKIFF_CODE_CACHE_DEBUG: "1", SKIFF_CODE_CACHE_WRITE_MS: "10" } });
		client = await TestClient.connect(skiff.wsUrl);
		assert.ok((await client.ok({ type: "get_state" })).sessionId);
		await until(() => /^code cache: not written \(/m.test(skiff!.stderr()), () => `the cache not to be written; stderr: ${skiff!.stderr()}`);
		assert.match(skiff.stderr(), /^code cache: none for this build$/m);
		assert.ok((await client.ok({ type: "get_state" })).sessionId, "still answering after the failed write");
		const second = await runSkiff(["--version"], { SKIFF_CODE_CACHE_DEBUG: "1" }, join(copy, "bin", "skiff"));
		assert.equal(second.code, 0, second.stderr);
		assert.match(second.stderr, /^code cache: none for this build$/m);
	} finally {
		client?.close();
		await skiff?.stop();
		rmSync(copy, { recursive: true, force: true });
	}
});
