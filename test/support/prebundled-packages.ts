/**
 * Packages the suite's files load as one bundle each instead of module by module.
 *
 * Why: every test file runs in a process of its own with tsx's loader hooks, and in Node 20 those hooks run on a
 * thread of their own, so each module a file loads costs a round trip to that thread to be resolved and another to
 * be loaded. typebox is 1,427 small modules: a file that imports the protocol's schemas spent about 0.45 s of CPU on
 * loading typebox alone (0.8 s in all, against 0.33 s for the same file bundled), and 67 files do. Bundled (with
 * shared chunks, so `typebox`, `typebox/value` and `typebox/compile` still share one copy of typebox's internals),
 * it is a handful of modules.
 *
 * The suite's runner bundles them once per run into a folder of its own ({@link prebundlePackages}) and starts
 * each test file with `--import test/support/prebundled-register.mjs`, which sends the packages' names there
 * (prebundled-resolve.mjs). A file run on its own, without the runner, loads the packages as installed.
 */
import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { REPO_ROOT } from "./skiff-process.js";

/** The packages bundled: those whose module count made loading them a large part of a test file's time. */
export const PREBUNDLED_PACKAGES = ["typebox"];

/** The environment variable the runner hands the resolve hook's data to its files in ({@link Prebundled}, as JSON). */
export const PREBUNDLED_ENV = "SKIFF_TEST_PREBUNDLED";

/** Every specifier a package exports (`typebox`, `typebox/value`, …), from its package.json's `exports`. */
function exportedSpecifiers(name: string): string[] {
	const manifest = JSON.parse(readFileSync(join(REPO_ROOT, "node_modules", name, "package.json"), "utf8")) as { exports?: Record<string, unknown> };
	const subpaths = manifest.exports ? Object.keys(manifest.exports).filter((key) => key === "." || key.startsWith("./")) : ["."];
	return subpaths.filter((key) => !key.includes("*")).map((key) => (key === "." ? name : `${name}/${key.slice(2)}`));
}

/** What the resolve hook is given: each specifier's bundle, and the installed packages' folders they were made from. */
export interface Prebundled {
	bundles: Record<string, string>;
	roots: string[];
}

/**
 * Bundles {@link PREBUNDLED_PACKAGES} as installed at the repository's top into `folder`: one entry per exported
 * specifier, their shared code in chunks.
 */
export async function prebundlePackages(folder: string): Promise<Prebundled> {
	const specifiers = PREBUNDLED_PACKAGES.flatMap(exportedSpecifiers);
	const entryPoints = specifiers.map((specifier, index) => ({ in: specifier, out: `entry-${index}` }));
	await build({ entryPoints, outdir: folder, bundle: true, splitting: true, format: "esm", platform: "node", target: "node20", outExtension: { ".js": ".mjs" }, absWorkingDir: REPO_ROOT, logLevel: "error" });
	return {
		bundles: Object.fromEntries(specifiers.map((specifier, index) => [specifier, pathToFileURL(join(folder, `entry-${index}.mjs`)).href])),
		// Real paths, as resolved URLs are (a worktree's node_modules may be a link to another checkout's).
		roots: PREBUNDLED_PACKAGES.map((name) => `${pathToFileURL(realpathSync(join(REPO_ROOT, "node_modules", name))).href}/`),
	};
}
