/**
 * The page's service worker (GET /web/sw.js), as the script text the browser runs. It exists so that the page
 * installs as an app and, opened while the service is down, shows a screen saying so instead of the browser's
 * error. It keeps one thing, the page shell's offline screen (made here, at install): it never stores a
 * response, so nothing of /rpc, /ws, /export or the page's data, and never the token (which lives in the
 * page's sessionStorage and travels only as the WebSocket's subprotocol), can end up in its cache. It answers
 * only navigations to the page; every other request goes to the network as if it were not there.
 */

/** The cache's name; a new version replaces the old one's cache when it activates. */
export const SHELL_CACHE = "skiff-shell-v1";
/** The key of the one entry the cache holds. */
export const OFFLINE_KEY = "/web/offline";

/** The screen shown for /web when the service cannot be reached: plain, both themes, no script. */
const OFFLINE_HTML =
	'<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">' +
	"<title>Skiff: not reachable</title><style>:root{color-scheme:light dark;font:16px/1.5 system-ui,sans-serif}" +
	"body{margin:0;min-height:100vh;display:grid;place-items:center;padding:24px;box-sizing:border-box}" +
	"main{max-width:28rem}a{display:inline-block;margin-top:8px;padding:8px 16px;border-radius:8px;background:#2f5be0;color:#fff;text-decoration:none}</style>" +
	"<main><h1>The service is not reachable</h1><p>Skiff could not be reached at this address: it may have stopped, or this " +
	"device may be offline. Start it again (or reconnect), then try again.</p><a href=\"/web\">Try again</a></main></html>";

/** Headers of the offline screen: as strict as the page's own, and it runs no script at all. */
const OFFLINE_HEADERS = {
	"Content-Type": "text/html; charset=utf-8",
	"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
	"X-Content-Type-Options": "nosniff",
	"Referrer-Policy": "no-referrer",
};

/** The worker's source: plain script (it runs in the browser as it is), with the constants above written in. */
export const SERVICE_WORKER_SCRIPT = `"use strict";
const CACHE = ${JSON.stringify(SHELL_CACHE)};
const OFFLINE = ${JSON.stringify(OFFLINE_KEY)};
self.addEventListener("install", (event) => {
	event.waitUntil(caches.open(CACHE).then((cache) => cache.put(OFFLINE, new Response(${JSON.stringify(OFFLINE_HTML)}, { headers: ${JSON.stringify(OFFLINE_HEADERS)} }))).then(() => self.skipWaiting()));
});
self.addEventListener("activate", (event) => {
	event.waitUntil(caches.keys().then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key)))).then(() => self.clients.claim()));
});
self.addEventListener("fetch", (event) => {
	const request = event.request;
	const url = new URL(request.url);
	// Only the page itself, opened as a document: never /rpc, /ws, /export or anything else.
	if (request.mode !== "navigate" || request.method !== "GET" || url.origin !== self.location.origin || (url.pathname !== "/web" && url.pathname !== "/web/")) return;
	event.respondWith(fetch(request).catch(() => caches.open(CACHE).then((cache) => cache.match(OFFLINE)).then((shell) => shell || Response.error())));
});
`;
