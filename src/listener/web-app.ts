/**
 * The small routes that make the page an installable app, beside GET /web and under its rules (no token, no
 * data, strict headers, never framed): the web app manifest (/web/manifest.webmanifest), its icon
 * (/web/icon.svg) and the service worker (/web/sw.js, allowed to control /web). Each is a constant made once.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createHash } from "node:crypto";
import { APP_ACCENT, appIconSvg } from "../shared/app-icon.js";
import { SERVICE_WORKER_SCRIPT } from "./service-worker.js";

/** The page's background (web/src/styles/tokens.css, light theme), shown while the installed app opens. */
const BACKGROUND = "#ffffff";

export const WEB_APP_MANIFEST = JSON.stringify({
	name: "Skiff",
	short_name: "Skiff",
	description: "A local coding agent: its sessions, runs and panels.",
	id: "/web",
	start_url: "/web",
	scope: "/web",
	display: "standalone",
	theme_color: APP_ACCENT,
	background_color: BACKGROUND,
	icons: [{ src: "/web/icon.svg", sizes: "any", type: "image/svg+xml", purpose: "any" }],
});

interface AppFile {
	type: string;
	body: Buffer;
	etag: string;
	extra?: Record<string, string>;
}

function appFile(type: string, text: string, extra?: Record<string, string>): AppFile {
	const body = Buffer.from(text, "utf8");
	return { type, body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`, extra };
}

/** The policy of each: nothing may be loaded or run (inline styles aside, for the icon). */
const POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The files by path. The worker may control /web (outside its own folder) by the header that allows it, and its
 * policy (a worker's own) lets it fetch from this origin only: the page, when it is opened.
 */
export const WEB_APP_FILES: ReadonlyMap<string, AppFile> = new Map([
	["/web/manifest.webmanifest", appFile("application/manifest+json; charset=utf-8", WEB_APP_MANIFEST)],
	["/web/icon.svg", appFile("image/svg+xml; charset=utf-8", appIconSvg())],
	[
		"/web/sw.js",
		appFile("text/javascript; charset=utf-8", SERVICE_WORKER_SCRIPT, {
			"Service-Worker-Allowed": "/web",
			"Content-Security-Policy": POLICY.replace("default-src 'none';", "default-src 'none'; connect-src 'self';"),
		}),
	],
]);

/** The headers every one of them carries: the page's. */
const HEADERS = {
	"Content-Security-Policy": POLICY,
	"X-Content-Type-Options": "nosniff",
	"Referrer-Policy": "no-referrer",
	"X-Frame-Options": "DENY",
	// Checked again at every use (the worker's updates, the icon after a new build), answered 304 while unchanged.
	"Cache-Control": "no-cache",
};

export function isWebAppPath(path: string): boolean {
	return WEB_APP_FILES.has(path);
}

export function serveWebAppFile(request: IncomingMessage, response: ServerResponse, path: string): void {
	const file = WEB_APP_FILES.get(path);
	if (!file) return void response.writeHead(404).end();
	const headers = { ...HEADERS, ...file.extra, "Content-Type": file.type, ETag: file.etag };
	if (request.headers["if-none-match"] === file.etag) return void response.writeHead(304, headers).end();
	response.writeHead(200, { ...headers, "Content-Length": String(file.body.length) });
	response.end(request.method === "HEAD" ? undefined : file.body);
}
