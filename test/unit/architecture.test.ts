/**
 * The layering of docs/architecture.md, checked on every import: the runtime knows nothing of the wire or the
 * transports, only the pi adapter imports pi, transports know nothing of the runtime, the protocol layer never
 * imports a feature, the client stands alone (it runs in browsers and in Node), and the page talks only the
 * documented protocol, through the client.
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

/** What a file imports: package names as written, relative imports as repository-relative paths. */
function importsOf(file: string): string[] {
	const text = readFileSync(join(ROOT, file), "utf8");
	const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g)].map(
		(m) => (m[1] ?? m[2])!,
	);
	return specifiers.map((s) => (s.startsWith(".") ? relative(ROOT, resolve(ROOT, dirname(file), s)) : s));
}

/** Files under `from` that import something matching `forbidden`, as `file -> import` lines. */
function violations(from: string, forbidden: (target: string) => boolean, except: (file: string) => boolean = () => false): string[] {
	return sources(from)
		.filter((file) => !except(file))
		.flatMap((file) => importsOf(file).filter(forbidden).map((target) => `${file} -> ${target}`));
}

const under = (...dirs: string[]) => (target: string) => dirs.some((d) => target === d || target.startsWith(`${d}/`));
const isPi = (target: string) => target.startsWith("@mariozechner/");

test("only src/agent/pi/ imports pi", () => {
	assert.deepEqual(violations("src", isPi, under("src/agent/pi")), []);
	assert.deepEqual(violations("web", isPi), []);
});

test("the runtime (src/agent/) imports neither the protocol, the transports, the CLI nor a feature's internals", () => {
	assert.deepEqual(violations("src/agent", under("src/protocol", "src/listener", "src/stdio", "src/cli", "src/memory", "src/collab", "src/service.ts")), []);
});

test("transports know nothing of the runtime; the protocol never imports a transport or a feature", () => {
	assert.deepEqual(violations("src/listener", under("src/agent", "src/memory", "src/features", "src/cli", "src/stdio")), []);
	assert.deepEqual(violations("src/stdio", under("src/agent", "src/memory", "src/features", "src/cli", "src/listener", "src/service.ts", "src/core.ts")), []);
	assert.deepEqual(violations("src/protocol", under("src/listener", "src/stdio", "src/memory", "src/cli", "src/agent/pi", "src/collab")), []);
});

test("collaboration (rooms, crypto, guests' view) knows neither the runtime nor a transport; the listener never its commands", () => {
	assert.deepEqual(violations("src/collab", under("src/agent", "src/listener", "src/stdio", "src/memory", "src/features", "src/cli", "src/service.ts", "src/core.ts")), []);
	assert.deepEqual(violations("src/listener", (t) => t.startsWith("src/collab/commands") || t.startsWith("src/collab/events")), []);
});

test("features and the CLI stay off the pi adapter and the transports' internals", () => {
	assert.deepEqual(violations("src/memory", under("src/listener", "src/stdio", "src/agent/pi", "src/cli")), []);
	assert.deepEqual(violations("src/features", under("src/listener", "src/stdio", "src/agent/pi", "src/cli")), []);
	assert.deepEqual(violations("src/cli", under("src/agent/pi")), []);
});

test("the page imports nothing of the service but shared helpers and the client (never its Node entry)", () => {
	assert.deepEqual(violations("web", (t) => t.startsWith("src/") && !under("src/shared", "src/client")(t)), []);
	assert.deepEqual(violations("web", (t) => /^src\/client\/node(\.js)?$/.test(t) || t === "ws"), []);
});

test("the client imports nothing outside src/client; only its Node entry imports a package (ws)", () => {
	assert.deepEqual(violations("src/client", (t) => !under("src/client")(t), (file) => file === "src/client/node.ts"), []);
	assert.deepEqual(violations("src/client", (t) => !under("src/client")(t) && t !== "ws"), []);
});

test("the checker sees imports (a guard against a regex that matches nothing)", () => {
	assert.ok(importsOf("src/core.ts").includes("src/agent/pi/index.js"));
	assert.ok(importsOf("src/service.ts").includes("src/core.js"), "dynamic imports count");
	assert.ok(importsOf("src/stdio/stdio-transport.ts").includes("src/protocol/dispatch.js"), "the stdio transport is checked");
	assert.ok(importsOf("src/agent/pi/open-session.ts").includes("@mariozechner/pi-coding-agent"));
	assert.ok(importsOf("src/client/node.ts").includes("ws"));
	assert.ok(importsOf("web/src/state/controller.ts").includes("src/client/index.js"));
	assert.ok(importsOf("src/listener/collab-socket.ts").includes("src/collab/channel.js"), "the listener's imports of collaboration are seen");
});
