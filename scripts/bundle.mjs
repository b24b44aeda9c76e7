/**
 * Bundles the compiled CLI (dist/cli/main.js) and the packages it loads into dist/bundle/, which bin/skiff runs.
 *
 * Why: Node loads an ES module graph file by file, and skiff's (pi's SDK; TypeBox alone is ~700 small modules) is
 * about a thousand files, each read, parsed and linked on its own: that was most of the service's start-up time.
 * One bundle starts in about a third of the time and holds less memory (docs/benchmarks.md). The model
 * providers pi-ai loads lazily stay lazy: each is a chunk of its own, loaded when a model of its kind is first used.
 *
 * What a bundle must keep: some modules find their own files from `import.meta.url` (pi's package.json, themes
 * and HTML export template, native helpers; skiff's page and package.json), and pi-ai imports one provider by a
 * specifier held in a variable, relative to its own file (Bedrock's, which then loads unbundled, as Node would). In every module that does either, `import.meta.url`
 * becomes the URL of the module's original file and a variable `import()` of a relative path resolves against
 * it. A module of node_modules is looked for as Node would resolve its package (in node_modules/ beside the
 * bundle, then in each parent folder's), so the bundle still finds it when npm hoists or nests packages.
 *
 * Two of pi's imports are loaded when first used instead of at start-up, which halves the code parsed before the
 * service is ready: jiti (a TypeScript loader with Babel inside, 2.3 MB), which pi uses only to load extensions from
 * files, and skiff sets `noExtensions`; and cli-highlight (highlight.js with every language and an HTML parser,
 * 1.8 MB), which pi's terminal renderers use to colour code. Each is replaced, for pi's modules, by a module with
 * the same exports that loads the real one on the first call: jiti as a chunk of the bundle, cli-highlight
 * (CommonJS, called synchronously) with require() from where pi's module would have required it.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

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
	"jiti/static": () => `
export function createJiti(...options) {
	let jiti;
	return {
		async import(...args) {
			jiti ??= (await import("jiti/static")).createJiti(...options);
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

const posix = (path) => path.split(sep).join("/");

/** What replaces `import.meta.url` in the module at `path` (see the header). */
function originalUrlExpression(path) {
	const inNodeModules = posix(path).split("/node_modules/");
	if (inNodeModules.length > 1) {
		const subpath = inNodeModules.slice(1).join("/node_modules/");
		return { imports: `import { locateInNodeModules as __skiffLocate } from ${JSON.stringify(LOCATE)};\n`, value: `__skiffLocate(import.meta.url, ${JSON.stringify(subpath)})` };
	}
	return { imports: "", value: `new URL(${JSON.stringify(posix(relative(outdir, path)))}, import.meta.url).href` };
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
		build.onLoad({ filter: /\.m?js$/ }, async (args) => {
			const source = await readFile(args.path, "utf8");
			const usesUrl = source.includes("import.meta.url");
			const variableImport = VARIABLE_IMPORT.test(source);
			if (!usesUrl && !variableImport) return undefined;
			const original = originalUrlExpression(args.path);
			let contents = source.replaceAll("import.meta.url", "__skiffOriginalUrl");
			if (variableImport) contents = contents.replace(new RegExp(VARIABLE_IMPORT, "g"), "__skiffImport(");
			const prelude =
				original.imports +
				`const __skiffOriginalUrl = ${original.value};\n` +
				(variableImport
					? "const __skiffImport = (specifier) => import(/^\\.{1,2}\\//.test(specifier) ? new URL(specifier, __skiffOriginalUrl).href : specifier);\n"
					: "");
			return { contents: prelude + contents, loader: "js" };
		});
	},
};

// Chunk names carry a hash of their content: a new build's chunks must not sit beside the last one's.
await rm(outdir, { recursive: true, force: true });
const result = await build({
	entryPoints: [join(root, "dist", "cli", "main.js")],
	outdir,
	bundle: true,
	splitting: true,
	format: "esm",
	platform: "node",
	target: "node20",
	// An optional peer of Mistral's SDK (tracing) that nothing installs; left to fail as it would unbundled.
	external: ["@opentelemetry/api"],
	// CommonJS modules inside the bundle call require() for Node's built-ins.
	banner: { js: "import { createRequire as __skiffCreateRequire } from 'node:module'; const require = __skiffCreateRequire(import.meta.url);" },
	plugins: [originalLocation],
	logLevel: "warning",
	legalComments: "none",
	// The source is kept in memory for as long as the process runs: without whitespace it is half the size (idle
	// memory 5 MiB lower). Names stay as written, so a stack trace still names its functions.
	minifyWhitespace: true,
	minifySyntax: true,
	metafile: true,
});
// What went into which chunk: test/unit/cli/bundle.test.ts reads it to check what loads at start-up.
await writeFile(join(outdir, "meta.json"), JSON.stringify(result.metafile));
