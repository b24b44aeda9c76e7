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
import { sendText } from "./http-reply.js";

/** Where the page comes from: the embedded copy, or a development directory read on every request. */
export type WebPageSource = { kind: "embedded"; html: string } | { kind: "directory"; dir: string };

/** A page body with its precomputed encodings. */
interface PreparedPage {
	etag: string;
	identity: Buffer;
	gzip: Buffer;
	br: Buffer;
}

const prepared = new WeakMap<object, PreparedPage>();

function prepare(html: string): PreparedPage {
	const identity = Buffer.from(html, "utf8");
	return {
		etag: `"${createHash("sha256").update(identity).digest("base64url").slice(0, 27)}"`,
		identity,
		gzip: gzipSync(identity, { level: 9 }),
		br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
	};
}

/** The page's Content-Security-Policy: scripts and styles only inline (the page is one file), no remote anything. */
function contentSecurityPolicy(host: string | undefined): string {
	// connect-src names this origin's /ws only; `host` was already checked by the listener's Host rules.
	const socket = host && /^[a-z0-9.\-[\]:]+$/i.test(host) ? `ws://${host}/ws wss://${host}/ws` : "'self'";
	return (
		"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; " +
		`connect-src ${socket}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`
	);
}

export function serveWebPage(request: IncomingMessage, response: ServerResponse, source: WebPageSource): void {
	let page: PreparedPage;
	try {
		if (source.kind === "embedded") {
			page = prepared.get(source) ?? prepare(source.html);
			prepared.set(source, page);
		} else {
			page = prepare(readFileSync(join(source.dir, "index.html"), "utf8"));
		}
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
