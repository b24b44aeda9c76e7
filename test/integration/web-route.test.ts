/** GET /web: the embedded page, compressed, with an ETag and strict headers; SKIFF_WEB_DEV_DIR overrides it. */
import assert from "node:assert/strict";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { httpRequest } from "../support/http.js";
import { REPO_ROOT, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

test("the embedded page is one self-contained file, served compressed with an ETag and a strict CSP", async () => {
	const built = readFileSync(join(REPO_ROOT, "dist", "web", "index.html"), "utf8");
	// URLs in the code are not references, but are refused all the same, except namespace names, a bare
	// scheme (the markdown lexer prefixes `www.` autolinks with it) and the lexer's own bug-report address.
	assert.doesNotMatch(built, /<script[^>]+src=|<link[^>]+href=|sourceMappingURL|https?:\/\/(?!www\.w3\.org\/|127\.0\.0\.1:\d+\/|["'`]|github\.com\/markedjs\/marked\.["'`])/, "no external reference");
	const skiff = await startSkiff({ agentDir: tempDir() });
	try {
		const { request } = await import("node:http");
		const raw = (headers: Record<string, string>) =>
			new Promise<{ status: number; headers: Record<string, any>; body: Buffer }>((resolve, reject) => {
				const req = request(`${skiff.url}/web`, { headers }, (res) => {
					const chunks: Buffer[] = [];
					res.on("data", (c: Buffer) => chunks.push(c));
					res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
				});
				req.on("error", reject);
				req.end();
			});
		const gz = await raw({ "Accept-Encoding": "gzip" });
		assert.equal(gz.status, 200);
		assert.equal(gz.headers["content-encoding"], "gzip");
		assert.equal(gunzipSync(gz.body).toString("utf8"), built);
		const br = await raw({ "Accept-Encoding": "br, gzip" });
		assert.equal(br.headers["content-encoding"], "br");
		assert.equal(brotliDecompressSync(br.body).toString("utf8"), built);
		// The build's compressed forms (npm run build writes them beside the page), not compressed on the request.
		assert.deepEqual(br.body, readFileSync(join(REPO_ROOT, "dist", "web", "index.html.br")));
		assert.deepEqual(gz.body, readFileSync(join(REPO_ROOT, "dist", "web", "index.html.gz")));
		const plain = await raw({});
		assert.equal(plain.body.toString("utf8"), built);
		const csp = String(plain.headers["content-security-policy"]);
		const host = new URL(skiff.url).host;
		assert.match(csp, new RegExp(`connect-src ws://${host.replace(/\./g, "\\.")}/ws wss://`));
		assert.match(csp, /default-src 'none'/);
		assert.deepEqual(
			csp.match(/https?:[^\s;]*/g),
			[`http://${host}/export/`, `https://${host}/export/`, `http://${host}/attachments`, `https://${host}/attachments`],
			"no remote source: only this origin's session downloads and uploads",
		);
		assert.equal(plain.headers["x-content-type-options"], "nosniff");
		assert.equal(plain.headers["referrer-policy"], "no-referrer");
		assert.equal(plain.headers["x-frame-options"], "DENY");
		const etag = String(plain.headers.etag);
		assert.match(etag, /^".+"$/);
		assert.equal((await raw({ "If-None-Match": etag })).status, 304);
		assert.equal((await httpRequest(`${skiff.url}/`)).status, 302);
	} finally {
		await skiff.stop();
	}
});

test("SKIFF_WEB_DEV_DIR serves the page from disk, read on every request", async () => {
	const dir = tempDir();
	writeFileSync(join(dir, "index.html"), "<!doctype html><title>dev one</title>");
	const skiff = await startSkiff({ agentDir: tempDir(), env: { SKIFF_WEB_DEV_DIR: dir } });
	try {
		assert.match((await httpRequest(`${skiff.url}/web`)).body, /dev one/);
		writeFileSync(join(dir, "index.html"), "<!doctype html><title>dev two</title>");
		assert.match((await httpRequest(`${skiff.url}/web`)).body, /dev two/);
	} finally {
		await skiff.stop();
	}
});

test("compressing the page for its first request (brotli at its best, about half a second) leaves ping answered at once", async () => {
	// A development directory holding the built page without its compressed forms: the route compresses it itself.
	const dir = tempDir();
	copyFileSync(join(REPO_ROOT, "dist", "web", "index.html"), join(dir, "index.html"));
	const skiff = await startSkiff({ agentDir: tempDir(), env: { SKIFF_WEB_DEV_DIR: dir } });
	try {
		const client = await TestClient.connect(skiff.wsUrl);
		await client.ok({ type: "ping" });
		const { request } = await import("node:http");
		const page = new Promise<string | undefined>((resolve, reject) => {
			const req = request(`${skiff.url}/web`, { headers: { "Accept-Encoding": "br" } }, (res) => {
				res.resume();
				res.on("end", () => resolve(res.headers["content-encoding"]));
			});
			req.on("error", reject);
			req.end();
		});
		await new Promise((resolve) => setTimeout(resolve, 30)); // the service has the request and is compressing
		const sent = performance.now();
		await client.ok({ type: "ping" });
		const ms = performance.now() - sent;
		assert.equal(await page, "br");
		assert.ok(ms < 100, `ping while the page was compressed: ${ms.toFixed(1)} ms`);
		client.close();
	} finally {
		await skiff.stop();
	}
});
