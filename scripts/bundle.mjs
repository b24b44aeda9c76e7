/**
 * Bundles the compiled CLI (dist/cli/main.js) and the packages it loads into one script, dist/bundle/skiff.cjs,
 * then starts it once so that bin/skiff can write V8's code cache of it (dist/bundle/skiff.cjs.cache).
 *
 * Why: Node loads an ES module graph file by file, and skiff's (pi's SDK; TypeBox alone is ~700 small modules) is
 * about a thousand files, each read, parsed and linked on its own. One file removes that, but V8 still compiles
 * what it loads on every start (about 100 ms here), and Node 20 keeps compiled code only for scripts (vm.Script's
 * code cache), not for ES modules. So the bundle is a script: one function expression that bin/skiff calls like a
 * CommonJS module, compiled from the code cache a real start left behind (see bin/skiff). docs/benchmarks.md has
 * the figures.
 *
 * What loads lazily stays lazy: each module reached only through import() (pi-ai's model providers) is wrapped by
 * esbuild in a function that runs on first import, so its code is in the script but neither run nor compiled
 * before it is needed. The providers' SDKs (half the code the script would hold, kept in memory for as long as
 * skiff runs) are not bundled: they are required from node_modules on first use (FIRST_USE_PACKAGES).
 *
 * What a bundle must keep: some modules find their own files from `import.meta.url` (pi's package.json, themes
 * and HTML export template, native helpers; skiff's page and package.json), and pi-ai imports one provider by a
 * specifier held in a variable, relative to its own file (Bedrock's, which then loads unbundled, as Node would).
 * In every module that does either, `import.meta.url` becomes the URL of the module's original file and a variable
 * `import()` of a relative path resolves against it. A module of node_modules is looked for as Node would resolve
 * its package (in node_modules/ beside the bundle, then in each parent folder's), so the bundle still finds it
 * when npm hoists or nests packages.
 *
 * Two of pi's own imports are not bundled either: jiti (a TypeScript loader with Babel inside, 2.3 MB), which pi
 * uses only to load extensions from files, and skiff sets `noExtensions`; and cli-highlight (highlight.js with every
 * language and an HTML parser, 1.8 MB), which pi's terminal renderers use to colour code. Each is replaced, for pi's
 * modules, by a module with the same exports that requires the real one, from where pi's module would have, on
 * first call.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { build } from "esbuild";
import { WebSocket } from "ws";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const outdir = join(root, "dist", "bundle");
const LOCATE = "skiff-bundle:locate";

/** The run-time half: where a module of node_modules is, from the bundle's own location. */
const LOCATE_SOURCE = `
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
export function locateInNodeModules(bundleUrl, subpath) {
	let dir = dirname(fileURLToPath(bundleUrl));
	for (;;) {
		const candidate = join(dir, "node_modules", subpath);
		if (existsSync(candidate)) return pathToFileURL(candidate).href;
		const parent = dirname(dir);
		if (parent === dir) return pathToFileURL(candidate).href;
		dir = parent;
	}
}
`;

/** `import(x)` whose argument is not a string literal (nor a method named import, nor `import()` in prose). */
const VARIABLE_IMPORT = /(?<![\w$.])import\((?!\s*["'`)])/;

/** The stand-ins (see the header); `base` is the URL of the module that imports the real one. */
const LAZY_IMPORTS = {
	// jiti/static is exported for import() only: it is required by its path (Node 20.19+ requires ES modules).
	"jiti/static": (base) => `
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
${base.imports}
export function createJiti(...options) {
	let jiti;
	return {
		async import(...args) {
			const load = createRequire(${base.value});
			jiti ??= load(join(dirname(load.resolve("jiti/package.json")), "lib", "jiti-static.mjs")).createJiti(...options);
			return jiti.import(...args);
		},
	};
}
`,
	"cli-highlight": (base) => `
import { createRequire } from "node:module";
${base.imports}
let real;
const load = () => (real ??= createRequire(${base.value})("cli-highlight"));
export const highlight = (...args) => load().highlight(...args);
export const supportsLanguage = (...args) => load().supportsLanguage(...args);
`,
};

/**
 * The model providers' SDKs (and the MCP SDK, which only skiff's MCP client imports, on first use): only pi-ai's provider modules, which run on first use, import them. They stay out of the
 * script and are required on first use from where the provider module would have found them, with what they alone
 * use (zod, google-auth-library, ...). test/integration/providers.test.ts runs each. So does pi's image library
 * (photon, which pi's read tool imports to check and shrink an image file before answering with it): its module
 * reads its WebAssembly from beside itself, which the bundle's folder does not hold, so bundled it failed to load
 * and every image read came back "Image omitted" (test/integration/attachments.test.ts reads PNG files).
 */
const FIRST_USE_PACKAGES = ["openai", "@anthropic-ai/sdk", "@google/genai", "@mistralai/mistralai", "@modelcontextprotocol/sdk", "@silvia-odwyer/photon-node"];

/** The stand-in of a first-use package: CommonJS, so an ES module SDK is required too (Node 20.19+). */
const firstUseModule = (specifier, base) => `
const { createRequire } = require("node:module");
${base.requires}
module.exports = createRequire(${base.value})(${JSON.stringify(specifier)});
`;

const posix = (path) => path.split(sep).join("/");

/**
 * Edits of pi's modules as the bundle takes them, each undoing a cost of every start that a service does not
 * need: in the module at the path ending in `file`, each `[from, to]` of `replace` replaces the text `from` by `to`.
 * The build fails if a `from` is not found (a new pi that changed it needs this table looked at again);
 * test/unit/cli/bundle.test.ts checks each.
 */
const SOURCE_EDITS = [
	{
		// pi's terminal width and wrapping functions segment text into graphemes and classify the graphemes with
		// Unicode property regexes. Creating the segmenter loads ICU's break rules, and creating the regexes
		// (which V8 parses as the module runs) builds their Unicode sets: together about 20 ms of every start and
		// a few MiB of ICU's tables paged in, while a service measures text for a terminal late, if ever. So
		// they are made on first use: every user of the shared segmenter calls `.segment(text)` only.
		file: "/@mariozechner/pi-tui/dist/utils.js",
		replace: [
			[
				'const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });',
				'let __skiffSegmenter;\nconst segmenter = { segment: (text) => (__skiffSegmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" })).segment(text) };',
			],
			["const zeroWidthRegex = /", "let __skiffWidthRegexes;\nconst __skiffRegexes = () => (__skiffWidthRegexes ??= {\nzeroWidthRegex: /"],
			["+$/v;\nconst leadingNonPrintingRegex = /", "+$/v,\nleadingNonPrintingRegex: /"],
			["]+/v;\nconst rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;", "]+/v,\nrgiEmojiRegex: /^\\p{RGI_Emoji}$/v });"],
			["if (zeroWidthRegex.test(segment))", "if (__skiffRegexes().zeroWidthRegex.test(segment))"],
			["&& rgiEmojiRegex.test(segment)", "&& __skiffRegexes().rgiEmojiRegex.test(segment)"],
			["segment.replace(leadingNonPrintingRegex, ", "segment.replace(__skiffRegexes().leadingNonPrintingRegex, "],
		],
	},
	{
		// The validator of theme files (TypeBox compiles it to code), needed when pi's terminal loads a theme:
		// compiled on first use.
		file: "/@mariozechner/pi-coding-agent/dist/modes/interactive/theme/theme.js",
		replace: [
			[
				"const validateThemeJson = Compile(ThemeJsonSchema);",
				"let __skiffThemeCheck;\nconst __skiffThemeValidator = () => (__skiffThemeCheck ??= Compile(ThemeJsonSchema));\nconst validateThemeJson = { Check: (value) => __skiffThemeValidator().Check(value), Errors: (value) => __skiffThemeValidator().Errors(value) };",
			],
		],
	},
	{
		// The validator of models.json, which TypeBox compiles to code (about 6 ms of every start) as the module
		// loads, for one check when the registry reads the file. TypeBox's own validator checks and lists errors
		// with its dynamic checker whenever it cannot compile, with the same results, and that is what checks the
		// file here: no code generated at start-up, nothing different about any answer.
		file: "/@mariozechner/pi-coding-agent/dist/core/model-registry.js",
		replace: [
			['import { Compile } from "typebox/compile";', 'import { Check as __skiffCheck, Errors as __skiffErrors } from "typebox/value";'],
			[
				"const validateModelsConfig = Compile(ModelsConfigSchema);",
				"const validateModelsConfig = { Check: (value) => __skiffCheck(ModelsConfigSchema, value), Errors: (value) => __skiffErrors(ModelsConfigSchema, value) };",
			],
		],
	},
	{
		// pi's extension loader hands extensions the packages it bundles (all of pi's own exports, its terminal
		// UI's, TypeBox's) through this object, read only when pi runs as a Bun binary (`isBunBinary`): under Node,
		// which is what skiff runs on, it resolves them from node_modules. Referenced, the object kept every module
		// of those packages in the script (pi's interactive terminal mode, its editor, markdown renderer and
		// selectors: a sixth of the script, kept in memory as long as skiff runs and partly run at start).
		// Renamed and left unused, esbuild drops it, and with it the modules nothing else uses (SIDE_EFFECT_FREE).
		file: "/@mariozechner/pi-coding-agent/dist/core/extensions/loader.js",
		replace: [["const VIRTUAL_MODULES = {", "const VIRTUAL_MODULES = {};\nconst __skiffBunOnlyModules = {"]],
	},
];

/**
 * Packages whose modules esbuild may leave out when nothing uses their exports (as a package.json's
 * `"sideEffects": false` allows). For pi 0.73.1 that leaves out 77 modules (pi's interactive terminal mode and
 * its components, its CLI, RPC and print modes, migrations, the terminal UI's editor, markdown and input
 * components), each of which does nothing at load but define what it exports. pi-ai is not one: its modules
 * register the model providers as they load.
 */
const SIDE_EFFECT_FREE = ["@mariozechner/pi-coding-agent", "@mariozechner/pi-tui"];

/** Whether `path` (a specifier or a file) is a module of a SIDE_EFFECT_FREE package. */
const sideEffectFree = (path) => SIDE_EFFECT_FREE.some((name) => path.startsWith(name) || posix(path).includes(`/node_modules/${name}/`));

/** `source` of the module at `path`, with its SOURCE_EDITS made. */
function edited(path, source) {
	let text = source;
	for (const edit of SOURCE_EDITS.filter(({ file }) => posix(path).endsWith(file))) {
		for (const [from, to] of edit.replace) {
			if (!text.includes(from)) throw new Error(`${path} no longer holds \`${from}\`: update SOURCE_EDITS in scripts/bundle.mjs`);
			text = text.replace(from, to);
		}
	}
	return text;
}

/**
 * What replaces `import.meta.url` in the module at `path` (see the header). `bundleUrl` is how the expression names
 * the bundle's URL: a CommonJS module may not say `import.meta.url`, so it uses the name the banner defines.
 */
function originalUrlExpression(path, bundleUrl = "import.meta.url") {
	const inNodeModules = posix(path).split("/node_modules/");
	if (inNodeModules.length > 1) {
		const subpath = inNodeModules.slice(1).join("/node_modules/");
		return {
			imports: `import { locateInNodeModules as __skiffLocate } from ${JSON.stringify(LOCATE)};\n`,
			requires: `const { locateInNodeModules: __skiffLocate } = require(${JSON.stringify(LOCATE)});\n`,
			value: `__skiffLocate(${bundleUrl}, ${JSON.stringify(subpath)})`,
		};
	}
	return { imports: "", requires: "", value: `new URL(${JSON.stringify(posix(relative(outdir, path)))}, ${bundleUrl}).href` };
}

const originalLocation = {
	name: "original-location",
	setup(build) {
		build.onResolve({ filter: new RegExp(`^${LOCATE}$`) }, () => ({ path: LOCATE, namespace: "skiff-bundle" }));
		build.onLoad({ filter: /.*/, namespace: "skiff-bundle" }, () => ({ contents: LOCATE_SOURCE, loader: "js", resolveDir: root }));
		const lazy = new RegExp(`^(${Object.keys(LAZY_IMPORTS).join("|")})$`);
		build.onResolve({ filter: lazy }, (args) =>
			args.namespace === "lazy-import" ? undefined : { path: args.path, namespace: "lazy-import", pluginData: { importer: args.importer, resolveDir: args.resolveDir } },
		);
		build.onLoad({ filter: /.*/, namespace: "lazy-import" }, (args) => ({
			contents: LAZY_IMPORTS[args.path](originalUrlExpression(args.pluginData.importer)),
			loader: "js",
			resolveDir: args.pluginData.resolveDir,
		}));
		const firstUse = new RegExp(`^(${FIRST_USE_PACKAGES.map((name) => name.replace(/[/.]/g, "\\$&")).join("|")})(/.*)?$`);
		build.onResolve({ filter: firstUse }, (args) => ({ path: args.path, namespace: "first-use", pluginData: { importer: args.importer } }));
		build.onLoad({ filter: /.*/, namespace: "first-use" }, (args) => ({
			contents: firstUseModule(args.path, originalUrlExpression(args.pluginData.importer, BUNDLE_URL)),
			loader: "js",
			resolveDir: root,
		}));
		// Resolved as esbuild would, then marked free of side effects (SIDE_EFFECT_FREE).
		build.onResolve({ filter: /.*/ }, async (args) => {
			if (args.pluginData?.skiffResolving || !(sideEffectFree(args.path) || sideEffectFree(args.importer))) return undefined;
			const result = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { skiffResolving: true } });
			if (result.errors.length > 0 || !sideEffectFree(result.path)) return undefined;
			return { path: result.path, namespace: result.namespace, sideEffects: false };
		});
		build.onLoad({ filter: /\.m?js$/ }, async (args) => {
			const read = await readFile(args.path, "utf8");
			const source = edited(args.path, read);
			const usesUrl = source.includes("import.meta.url");
			const variableImport = VARIABLE_IMPORT.test(source);
			if (!usesUrl && !variableImport) return source === read ? undefined : { contents: source, loader: "js" };
			const original = originalUrlExpression(args.path);
			let contents = source.replaceAll("import.meta.url", "__skiffOriginalUrl");
			if (variableImport) contents = contents.replace(new RegExp(VARIABLE_IMPORT, "g"), "__skiffImport(");
			const prelude =
				original.imports +
				`const __skiffOriginalUrl = ${original.value};\n` +
				(variableImport
					? "const __skiffImport = (specifier) => Promise.resolve().then(() => require(/^\\.{1,2}\\//.test(specifier) ? require(\"node:url\").fileURLToPath(new URL(specifier, __skiffOriginalUrl)) : specifier));\n"
					: "");
			return { contents: prelude + contents, loader: "js" };
		});
	},
};

/** The bundle's own URL, defined by its banner. */
const BUNDLE_URL = "__skiffBundleUrl";

/** The bundle's first line: the hash of the rest, which bin/skiff matches against its code cache's first line. */
const BUILD_LINE = (hash) => `//skiff-build ${hash}\n`;

await rm(outdir, { recursive: true, force: true });
const result = await build({
	entryPoints: [join(root, "dist", "cli", "main.js")],
	outfile: join(outdir, "skiff.cjs"),
	write: false,
	bundle: true,
	format: "cjs",
	platform: "node",
	target: "node20",
	supported: {
		// Every import() becomes a require() (Node 20.19+ requires ES modules): a script compiled by vm.Script may
		// not use import() without an experimental loader.
		"dynamic-import": false,
		// Node 20 has RegExp's v flag. Lowered, pi's terminal width regexes became `new RegExp(...)` calls that
		// build their Unicode sets at start-up (about 20 ms) instead of on first use.
		"regexp-set-notation": true,
	},
	// An optional peer of Mistral's SDK (tracing) that nothing installs; left to fail as it would unbundled.
	external: ["@opentelemetry/api"],
	define: { "import.meta.url": BUNDLE_URL },
	// The script is one function expression: bin/skiff calls it as Node calls a CommonJS module's wrapper. Its
	// first statement is the strict-mode directive: pi's modules and skiff's are ES modules, which run strict.
	banner: { js: `(function (exports, require, module, __filename, __dirname) {"use strict";const ${BUNDLE_URL} = require("node:url").pathToFileURL(__filename).href;` },
	footer: { js: "\n})" },
	plugins: [originalLocation],
	logLevel: "warning",
	legalComments: "none",
	// The source is kept in memory for as long as the process runs: without whitespace it is half the size (idle
	// memory 5 MiB lower). Names stay as written, so a stack trace still names its functions.
	minifyWhitespace: true,
	minifySyntax: true,
	// Non-ASCII characters are escaped, so bin/skiff can read the script as Latin-1, which Node keeps outside V8's
	// heap as an external string.
	charset: "ascii",
	metafile: true,
});
const [output] = result.outputFiles;
const text = output.text;
if (!/^[\x00-\x7f]*$/.test(text)) throw new Error("the bundle holds non-ASCII characters: bin/skiff reads it as Latin-1");
await mkdir(outdir, { recursive: true });
await writeFile(join(outdir, "skiff.cjs"), BUILD_LINE(createHash("sha256").update(text).digest("hex").slice(0, 32)) + text);
// What went into the bundle: test/unit/cli/bundle.test.ts reads it to check what loads at start-up.
await writeFile(join(outdir, "meta.json"), JSON.stringify(result.metafile));
await writeCodeCache();

/**
 * Starts the bundle once (no model, a throwaway agent directory and working directory), asks it for its state over
 * a WebSocket as a client's first command does, and waits for bin/skiff to write the code cache it writes when it
 * finds none, then stops it. The cache holds what V8 compiled by then: with the first command's path in it (the
 * upgrade, the dispatch, get_state), a start answers its first client without compiling that path (about 7 ms of
 * CPU here). Without a cache skiff still starts, only slower, so a failure here is a warning.
 */
async function writeCodeCache() {
	const scratch = await mkdtemp(join(tmpdir(), "skiff-code-cache-"));
	const cacheFile = join(outdir, "skiff.cjs.cache");
	const child = spawn(process.execPath, [join(root, "bin", "skiff"), "--listen", "127.0.0.1:0", "--cwd", scratch], {
		env: { ...process.env, SKIFF_AGENT_DIR: join(scratch, "agent") },
		stdio: ["ignore", "pipe", "pipe"],
	});
	let stdout = "";
	let stderr = "";
	child.stdout.on("data", (chunk) => (stdout += chunk));
	child.stderr.on("data", (chunk) => (stderr += chunk));
	const exited = new Promise((resolve) => child.on("exit", resolve));
	const deadline = Date.now() + 30_000;
	let asked = false;
	while (!existsSync(cacheFile) && child.exitCode === null && Date.now() < deadline) {
		const banner = /listening on (http:\/\/\S+)/.exec(stdout);
		if (banner && !asked) {
			asked = true;
			await firstCommand(`${banner[1].replace(/^http/, "ws")}/ws`).catch((error) => console.warn(`warning: the code cache's start was not asked for its state (${error.message})`));
		}
		await sleep(100);
	}
	child.kill("SIGTERM");
	await exited;
	await rm(scratch, { recursive: true, force: true });
	if (!existsSync(cacheFile)) console.warn(`warning: no code cache was written (skiff starts without it, slower)\n${stderr}`);
}

/** Sends `get_state` over a WebSocket at `url` and resolves with its answer. */
function firstCommand(url) {
	return new Promise((resolve, reject) => {
		const socket = new WebSocket(url);
		const timer = setTimeout(() => socket.terminate(), 20_000);
		socket.on("open", () => socket.send(JSON.stringify({ id: "code-cache", type: "get_state" })));
		socket.on("message", (data) => {
			if (JSON.parse(String(data)).id !== "code-cache") return;
			clearTimeout(timer);
			socket.close();
			resolve();
		});
		socket.on("error", reject);
		socket.on("close", () => reject(new Error("closed before it answered")));
	});
}
