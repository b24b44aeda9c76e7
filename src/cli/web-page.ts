/**
 * The page served at /web: the chat client built from web/ into dist/web/index.html by `npm run build`,
 * read once and kept in memory, with the folder holding the compressed forms the build made of it (served in
 * their place; src/listener/web-precompressed.ts). If the build is missing (a checkout compiled with tsc alone), a minimal page
 * explains how to drive the control plane instead.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { WebPageSource } from "../listener/web-route.js";

const BUILT_DIR = new URL("../web/", import.meta.url);
const BUILT_PAGE = new URL("index.html", BUILT_DIR);

const FALLBACK_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Skiff</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem;color:#222}
code{background:#f2f2f2;padding:.1rem .3rem;border-radius:4px}</style></head>
<body><h1>Skiff control plane</h1>
<p>The service is running, but the web chat client was not built (run <code>npm run build</code>); meanwhile drive the agent over the control
protocol: a WebSocket at <code>/ws</code> (one JSON command per text frame) or <code>POST /rpc</code>.</p>
<p>Example: <code>curl -s localhost:8787/rpc -H 'content-type: application/json' -d '{"type":"get_state"}'</code></p>
<p>See <code>docs/protocol.md</code> in the package for every command and event.</p></body></html>
`;

let cached: WebPageSource | undefined;

export function embeddedWebPage(): WebPageSource {
	if (cached === undefined) {
		try {
			cached = { kind: "embedded", html: readFileSync(BUILT_PAGE, "utf8"), dir: fileURLToPath(BUILT_DIR) };
		} catch {
			cached = { kind: "embedded", html: FALLBACK_PAGE };
		}
	}
	return cached;
}
