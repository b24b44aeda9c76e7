/**
 * GET /web: the chat page, served from memory with compression and an ETag (or from SKIFF_WEB_DEV_DIR on
 * disk, read per request). Its compressed forms are the build's (web-precompressed.ts) when they were made from
 * the page served, else compressed once on the thread pool. It never needs authentication and carries no data; strict security headers keep
 * it from being framed, from loading anything remote, and from connecting anywhere but this origin's /ws.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { isAuthority } from "./host-syntax.js";
import { sendText } from "./http-reply.js";
import { compressPage, type Encoding, PAGE_FILE, readPrecompressed } from "./web-precompressed.js";

/**
 * Where the page comes from: the embedded copy (with `dir`, the build's folder holding its compressed forms), or a
 * development directory read on every request (whose compressed forms are used too, when made from its page).
 */
export type WebPageSource = { kind: "embedded"; html: string; dir?: string } | { kind: "directory"; dir: string };

/**
 * A page body, its ETag, and its encodings, each prepared once on first use: the build's file when it was made
 * from this page, else compressed on the thread pool (brotli at its best quality takes about half a second for
 * the page, which the event loop, every client, would otherwise wait).
 */
class PreparedPage {
	readonly etag: string;
	private readonly encoded = new Map<Encoding, Promise<Buffer>>();

	constructor(
		readonly identity: Buffer,
		private readonly dir: string | undefined,
	) {
		this.etag = `"${createHash("sha256").update(identity).digest("base64url").slice(0, 27)}"`;
	}

	encode(encoding: Encoding): Promise<Buffer> {
		let body = this.encoded.get(encoding);
		if (!body) {
			const built = this.dir === undefined ? Promise.resolve(undefined) : readPrecompressed(this.dir, this.identity, encoding);
			body = built.then((found) => found ?? compressPage(this.identity, encoding));
			body.catch(() => this.encoded.delete(encoding)); // tried again next time
			this.encoded.set(encoding, body);
		}
		return body;
	}
}

/** The prepared page of each source; a development directory's is replaced when its file changes. */
const prepared = new WeakMap<WebPageSource, PreparedPage>();

function pageOf(source: WebPageSource): PreparedPage {
	const cached = prepared.get(source);
	if (cached && source.kind === "embedded") return cached;
	const html = source.kind === "embedded" ? Buffer.from(source.html, "utf8") : readFileSync(join(source.dir, PAGE_FILE));
	if (cached?.identity.equals(html)) return cached;
	const page = new PreparedPage(html, source.dir);
	prepared.set(source, page);
	return page;
}

/**
 * The page's Content-Security-Policy: scripts and styles only inline (the page is one file), no remote anything.
 * `socketPath` is the one WebSocket path the page may open: /ws, or a collaboration guest's room. The host page
 * (on /ws) may also fetch its session downloads (/export/, with the token) and upload images (/attachments); a
 * guest page may not.
 */
function contentSecurityPolicy(host: string | undefined, socketPath: string): string {
	// connect-src names this origin's socket path (and downloads and uploads) only, when Host is a well-formed authority (else
	// the same origin).
	const downloads = socketPath === "/ws" ? ` http://${host}/export/ https://${host}/export/ http://${host}/attachments https://${host}/attachments` : "";
	const socket = host && isAuthority(host) ? `ws://${host}${socketPath} wss://${host}${socketPath}${downloads}` : "'self'";
	// The host page (not a guest's) is an installable app: its manifest and service worker (web-app.ts; a service
	// worker is same-origin by rule, and this origin serves no other script).
	const app = socketPath === "/ws" ? " manifest-src 'self'; worker-src 'self';" : "";
	return (
		"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; " +
		`connect-src ${socket};${app} base-uri 'none'; form-action 'none'; frame-ancestors 'none'`
	);
}

/** Serves the page; as a collaboration guest's page (`/collab/ws/<roomId>`), it may connect to that path only. */
export function serveWebPage(request: IncomingMessage, response: ServerResponse, source: WebPageSource, socketPath = "/ws"): void {
	let page: PreparedPage;
	try {
		page = pageOf(source);
	} catch {
		return sendText(response, 500, "web page not found in SKIFF_WEB_DEV_DIR (expected index.html)");
	}
	const headers: Record<string, string> = {
		"Content-Type": "text/html; charset=utf-8",
		"Content-Security-Policy": contentSecurityPolicy(request.headers.host, socketPath),
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
	const encoding: Encoding | undefined = /\bbr\b/.test(accepted) ? "br" : /\bgzip\b/.test(accepted) ? "gzip" : undefined;
	const send = (body: Buffer, contentEncoding?: Encoding) => {
		if (response.destroyed) return; // the client left while the page was compressed
		if (contentEncoding) headers["Content-Encoding"] = contentEncoding;
		headers["Content-Length"] = String(body.length);
		response.writeHead(200, headers);
		response.end(request.method === "HEAD" ? undefined : body);
	};
	if (!encoding) return send(page.identity);
	page.encode(encoding).then(
		(body) => send(body, encoding),
		() => send(page.identity), // compression failed: the page as it is
	);
}
