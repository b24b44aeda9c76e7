/**
 * GET /web serves the build's compressed forms of the page (no compression on a request) when they were made from
 * the page it serves, and never a stale or damaged one: then it compresses the page itself, as before.
 *
 * The files here are brotli at quality 4, which the route never makes (it makes quality 11): a body equal to the
 * file's bytes was read from the file, not compressed for the request.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { compressPage, writePrecompressed } from "../../../src/listener/web-precompressed.js";
import { serveWebPage, type WebPageSource } from "../../../src/listener/web-route.js";

type Reply = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

/** A server of `source` at /web, for the test's duration; `get` asks it with the given Accept-Encoding. */
async function withPage(source: WebPageSource, run: (get: (acceptEncoding?: string, method?: string) => Promise<Reply>) => Promise<void>): Promise<void> {
	const server = createServer((req, res) => serveWebPage(req, res, source));
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/web`;
	const get = (acceptEncoding?: string, method = "GET") =>
		new Promise<Reply>((resolve, reject) => {
			const req = request(url, { method, headers: acceptEncoding ? { "Accept-Encoding": acceptEncoding } : {} }, (res) => {
				const chunks: Buffer[] = [];
				res.on("data", (chunk: Buffer) => chunks.push(chunk));
				res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
			});
			req.on("error", reject);
			req.end();
		});
	try {
		await run(get);
	} finally {
		await new Promise((resolve) => server.close(resolve));
	}
}

function pageDir(html: string): string {
	const dir = mkdtempSync(join(tmpdir(), "skiff-web-precompressed-"));
	writeFileSync(join(dir, "index.html"), html);
	return dir;
}

const PAGE = `<!doctype html><title>built</title>${"<p>a paragraph of the page</p>".repeat(200)}`;

test("the first brotli (and gzip) request of the embedded page is answered with the build's file", async () => {
	const dir = pageDir(PAGE);
	try {
		await writePrecompressed(dir, { brotliQuality: 4 });
		const br = readFileSync(join(dir, "index.html.br"));
		assert.notDeepEqual(br, await compressPage(Buffer.from(PAGE), "br"), "the file is not what the route would make");
		await withPage({ kind: "embedded", html: PAGE, dir }, async (get) => {
			const first = await get("gzip, deflate, br");
			assert.equal(first.status, 200);
			assert.equal(first.headers["content-encoding"], "br");
			assert.equal(first.headers.vary, "Accept-Encoding");
			assert.equal(first.headers["content-length"], String(br.length));
			assert.match(String(first.headers.etag), /^".+"$/);
			assert.deepEqual(first.body, br, "the build's bytes");
			assert.equal(brotliDecompressSync(first.body).toString("utf8"), PAGE);
			const gz = await get("gzip");
			assert.equal(gz.headers["content-encoding"], "gzip");
			assert.deepEqual(gz.body, readFileSync(join(dir, "index.html.gz")));
			const head = await get("br", "HEAD");
			assert.equal(head.headers["content-length"], String(br.length));
			assert.equal(head.body.length, 0);
			assert.equal((await get()).body.toString("utf8"), PAGE);
		});
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test("compressed forms made from another page, or damaged, are not served: the page is compressed instead", async () => {
	const dir = pageDir("<!doctype html><title>an older page</title>");
	try {
		await writePrecompressed(dir, { brotliQuality: 4 });
		const stale = readFileSync(join(dir, "index.html.br"));
		// The embedded page is newer than the files beside it.
		await withPage({ kind: "embedded", html: PAGE, dir }, async (get) => {
			const br = await get("br");
			assert.equal(br.headers["content-encoding"], "br");
			assert.notDeepEqual(br.body, stale);
			assert.deepEqual(br.body, await compressPage(Buffer.from(PAGE), "br"), "compressed for the request, at quality 11");
			assert.equal(gunzipSync((await get("gzip")).body).toString("utf8"), PAGE);
		});
		// A development directory whose page was edited after its files were made: the new page, never the old files.
		await withPage({ kind: "directory", dir }, async (get) => {
			assert.deepEqual((await get("br")).body, stale, "made from this page: served");
			writeFileSync(join(dir, "index.html"), PAGE);
			const edited = await get("br");
			assert.notDeepEqual(edited.body, stale);
			assert.equal(brotliDecompressSync(edited.body).toString("utf8"), PAGE);
		});
		// Files made from this page, but one of them replaced since: that one is compressed again.
		await writePrecompressed(dir, { brotliQuality: 4 });
		writeFileSync(join(dir, "index.html.br"), await compressPage(Buffer.from("<!doctype html><title>other</title>"), "br", 4));
		await withPage({ kind: "embedded", html: PAGE, dir }, async (get) => {
			assert.equal(brotliDecompressSync((await get("br")).body).toString("utf8"), PAGE);
			assert.deepEqual((await get("gzip")).body, readFileSync(join(dir, "index.html.gz")), "the other file still is the build's");
		});
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
