/**
 * GET /web: the chat page, served from memory with compression and an ETag (or from SKIFF_WEB_DEV_DIR on
 * disk, read per request). It never needs authentication and carries no data; strict security headers keep
 * it from being framed, from loading anything remote, and from connecting anywhere but this origin's /ws.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { isAuthority } from "./host-syntax.js";
import { sendText } from "./http-reply.js";

/** Where the page comes from: the embedded copy, or a development directory read on every request. */
export type WebPageSource = { kind: "embedded"; html: string } | { kind: "directory"; dir: string };

/** A page body, its ETag, and its encodings, each compressed once on first use. */
class PreparedPage {
	readonly etag: string;
	private gzipped: Buffer | undefined;
	private brotli: Buffer | undefined;

	constructor(readonly identity: Buffer) {
		this.etag = `"${createHash("sha256").update(identity).digest("base64url").slice(0, 27)}"`;
	}
	get gzip(): Buffer {
		return (this.gzipped ??= gzipSync(this.identity, { level: 9 }));
	}
	get br(): Buffer {
		return (this.brotli ??= brotliCompressSync(this.identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
	}
}

/** The prepared page of each source; a development directory's is replaced when its file changes. */
const prepared = new WeakMap<WebPageSource, PreparedPage>();

function pageOf(source: WebPageSource): PreparedPage {
	const cached = prepared.get(source);
	if (cached && source.kind === "embedded") return cached;
	const html = source.kind === "embedded" ? Buffer.from(source.html, "utf8") : readFileSync(join(source.dir, "index.html"));
	if (cached?.identity.equals(html)) return cached;
	const page = new PreparedPage(html);
	prepared.set(source, page);
	return page;
}

/** The page's Content-Security-Policy: scripts and styles only inline (the page is one file), no remote anything. */
function contentSecurityPolicy(host: string | undefined): string {
	// connect-src names this origin's /ws and its session downloads (/export/, fetched with the token) only, when
	// Host is a well-formed authority (else the same origin).
	const socket = host && isAuthority(host) ? `ws://${host}/ws wss://${host}/ws http://${host}/export/ https://${host}/export/` : "'self'";
	return (
		"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; " +
		`connect-src ${socket}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`
	);
}

export function serveWebPage(request: IncomingMessage, response: ServerResponse, source: WebPageSource): void {
	let page: PreparedPage;
	try {
		page = pageOf(source);
	} catch {
		return sendText(response, 500, "web page not found in SKIFF_WEB_DEV_DIR (expected index.html)");
	}
	const headers: Record<string, string> = {
		"Content-Type": "text/html; charset=utf-8",
		"Content-Security-Policy": contentSecurityPolicy(request.headers.host),
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy": "no-referrer",
		"X-Frame-Options": "DENY",
		"Cache-Control": "no-cache",
		ETag: page.etag,
		Vary: "Accept-Encoding",
	};
	if (request.headers["if-none-match"] === page.etag) {
		response.writeHead(304, headers).end();
		return;
	}
	const accepted = String(request.headers["accept-encoding"] ?? "");
	let body = page.identity;
	if (/\bbr\b/.test(accepted)) {
		body = page.br;
		headers["Content-Encoding"] = "br";
	} else if (/\bgzip\b/.test(accepted)) {
		body = page.gzip;
		headers["Content-Encoding"] = "gzip";
	}
	headers["Content-Length"] = String(body.length);
	response.writeHead(200, headers);
	response.end(request.method === "HEAD" ? undefined : body);
}
