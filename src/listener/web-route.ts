/**
 * GET /web: the chat page, served from memory (or from SKIFF_WEB_DEV_DIR on disk). It never needs
 * authentication and carries no data; strict security headers keep it from being framed or loading
 * anything remote.
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { sendText } from "./http-reply.js";

/** Where the page comes from: the embedded copy, or a development directory read on every request. */
export type WebPageSource = { kind: "embedded"; html: string } | { kind: "directory"; dir: string };

const SECURITY_HEADERS = {
	"Content-Security-Policy":
		"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; " +
		"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
	"X-Content-Type-Options": "nosniff",
	"Referrer-Policy": "no-referrer",
	"X-Frame-Options": "DENY",
	"Cache-Control": "no-cache",
};

export function serveWebPage(request: IncomingMessage, response: ServerResponse, source: WebPageSource): void {
	let html: string;
	try {
		html = source.kind === "embedded" ? source.html : readFileSync(join(source.dir, "index.html"), "utf8");
	} catch {
		return sendText(response, 500, "web page not found in SKIFF_WEB_DEV_DIR (expected index.html)");
	}
	response.writeHead(200, { "Content-Type": "text/html; charset=utf-8", ...SECURITY_HEADERS });
	response.end(request.method === "HEAD" ? undefined : html);
}
