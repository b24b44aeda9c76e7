/**
 * The dependency declarations tell the truth: every package the code imports is declared, every pin is what
 * is installed, and the packages we share with pi (TypeBox schemas cross into pi's tools; pi-ai is imported
 * directly) are the very copies pi resolves to.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../support/skiff-process.js";

interface Manifest {
	name: string;
	version: string;
	engines?: Record<string, string>;
	dependencies?: Record<string, string>;
	devDependencies?: Record<string, string>;
	peerDependencies?: Record<string, string>;
}

const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
const ours = readManifest(REPO_ROOT);
const NODE_MODULES = join(REPO_ROOT, "node_modules");
const PI = "@mariozechner/pi-coding-agent";
const PI_AI = "@mariozechner/pi-ai";

/** Every installed package (one entry per copy): `node_modules/<name>` at any depth of the tree. */
function installedPackages(): Array<{ name: string; dir: string; manifest: Manifest }> {
	const found: Array<{ name: string; dir: string; manifest: Manifest }> = [];
	const visit = (modules: string) => {
		if (!existsSync(modules)) return;
		for (const entry of readdirSync(modules)) {
			if (entry.startsWith(".")) continue; // .bin, .package-lock.json
			const names = entry.startsWith("@") ? readdirSync(join(modules, entry)).map((inner) => `${entry}/${inner}`) : [entry];
			for (const name of names) {
				const dir = join(modules, name);
				if (existsSync(join(dir, "package.json"))) found.push({ name, dir, manifest: readManifest(dir) });
				visit(join(dir, "node_modules"));
			}
		}
	};
	visit(NODE_MODULES);
	return found;
}

const INSTALLED = installedPackages();
const copiesOf = (name: string) => INSTALLED.filter((p) => p.name === name);
/** What an installed package asks for `name`, as a dependency or a peer. */
const declaredRange = (manifest: Manifest, name: string) => manifest.dependencies?.[name] ?? manifest.peerDependencies?.[name];

/**
 * Whether `version` meets `range`, for the two forms npm packages here use: an exact `x.y.z` and a caret
 * `^x.y.z` (same major, or same minor while the major is 0, and not lower). Any other form fails loudly.
 */
function satisfies(version: string, range: string): boolean {
	const parse = (text: string) => {
		const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(text);
		assert.ok(match, `"${text}" is not a plain x.y.z version`);
		return match.slice(1).map(Number) as [number, number, number];
	};
	const have = parse(version);
	if (!range.startsWith("^")) return have.join(".") === parse(range).join(".");
	const floor = parse(range.slice(1));
	const fixed = floor[0] === 0 ? 2 : 1; // leading parts that must stay equal
	for (let i = 0; i < 3; i++) {
		if (i < fixed && have[i] !== floor[i]) return false;
		if (have[i] !== floor[i]) return have[i]! > floor[i]!;
	}
	return true;
}

/** Package names of the bare imports in a directory's TypeScript (`node:` built-ins left out). */
function importedPackages(dir: string): Set<string> {
	const packages = new Set<string>();
	const files = readdirSync(join(REPO_ROOT, dir), { recursive: true, encoding: "utf8" }).filter((f) => /\.tsx?$/.test(f));
	for (const file of files) {
		const source = readFileSync(join(REPO_ROOT, dir, file), "utf8");
		for (const [, specifier] of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)"([^".][^"]*)"/gm)) {
			if (specifier!.startsWith("node:")) continue;
			const parts = specifier!.split("/");
			packages.add(specifier!.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!);
		}
	}
	return packages;
}

test("the version check reads exact and caret ranges as npm does", () => {
	assert.ok(satisfies("1.4.3", "^1.1.24"));
	assert.ok(satisfies("0.73.1", "^0.73.1"));
	assert.ok(satisfies("0.73.5", "^0.73.1"));
	assert.ok(satisfies("1.4.3", "1.4.3"));
	assert.ok(!satisfies("2.0.0", "^1.1.24"));
	assert.ok(!satisfies("1.1.23", "^1.1.24"));
	assert.ok(!satisfies("0.74.0", "^0.73.1"));
	assert.ok(!satisfies("1.4.2", "1.4.3"));
});

test("every package the code imports is declared: the service's in dependencies, the rest at least in devDependencies", () => {
	const runtime = new Set(Object.keys(ours.dependencies ?? {}));
	// A test may import the package by its own name: a self-reference through package.json "exports".
	const any = new Set([...runtime, ...Object.keys(ours.devDependencies ?? {}), ours.name]);
	for (const name of importedPackages("src")) assert.ok(runtime.has(name), `src imports ${name}, which "dependencies" does not declare`);
	for (const dir of ["test", "scripts", "bench", "web/src"]) {
		for (const name of importedPackages(dir)) assert.ok(any.has(name), `${dir} imports ${name}, which package.json does not declare`);
	}
});

test("every dependency is pinned exactly and installed at that version", () => {
	for (const [name, pin] of Object.entries({ ...ours.dependencies, ...ours.devDependencies })) {
		assert.match(pin, /^\d+\.\d+\.\d+$/, `${name} is pinned to one version`);
		const top = copiesOf(name).find((copy) => copy.dir === join(NODE_MODULES, name));
		assert.equal(top?.manifest.version, pin, `${name} is installed at ${pin}`);
	}
});

test("typebox is one copy, ours and pi's alike (our schemas cross into pi's tools)", () => {
	const copies = copiesOf("typebox");
	assert.deepEqual(copies.map((copy) => copy.dir), [join(NODE_MODULES, "typebox")], "exactly one installed typebox");
	const installed = copies[0]!.manifest.version;
	assert.equal(ours.dependencies?.typebox, installed, "our pin is the installed copy");
	const piRange = declaredRange(copiesOf(PI)[0]!.manifest, "typebox");
	assert.ok(piRange !== undefined, `${PI} declares typebox`);
	for (const { name, manifest } of INSTALLED) {
		const range = declaredRange(manifest, "typebox");
		if (range !== undefined) assert.ok(satisfies(installed, range), `${name} declares typebox ${range}; ${installed} meets it`);
	}
});

test("pi-ai is declared at the version pi-coding-agent depends on, and installed once", () => {
	const piRange = declaredRange(copiesOf(PI)[0]!.manifest, PI_AI);
	assert.ok(piRange !== undefined, `${PI} depends on ${PI_AI}`);
	assert.equal(ours.dependencies?.[PI_AI], piRange.replace(/^\^/, ""), `our ${PI_AI} pin is the version ${PI} names (${piRange})`);
	const copies = copiesOf(PI_AI);
	assert.equal(copies.length, 1, `exactly one installed ${PI_AI}`);
	assert.equal(copies[0]!.manifest.version, ours.dependencies?.[PI_AI]);
	for (const { name, manifest } of INSTALLED) {
		const range = declaredRange(manifest, PI_AI);
		if (range !== undefined) assert.ok(satisfies(copies[0]!.manifest.version, range), `${name} declares ${PI_AI} ${range}`);
	}
});
