/**
 * Makes the host's page installable: its web app manifest, and the service worker that shows a "not reachable"
 * screen when the page is opened while the service is down (both served by the listener, src/listener/web-app.ts).
 * Linked from here rather than from index.html, so a guest's page (a collaboration link) has neither.
 */
export function installApp(): void {
	const manifest = document.createElement("link");
	manifest.rel = "manifest";
	manifest.href = "/web/manifest.webmanifest";
	document.head.append(manifest);
}

let registered = false;

/**
 * Registers the worker, once, when the page has first bound to its session and painted it (App calls it then).
 * Registered as the page started, the browser fetched and started the worker while the page's socket opened and
 * its first answers came: the socket opened 100 to 200 ms later under load (docs/benchmarks.md, the web page).
 */
export function registerWorker(): void {
	if (registered) return;
	registered = true;
	// Service workers exist only in secure contexts (HTTPS, localhost).
	navigator.serviceWorker?.register("/web/sw.js", { scope: "/web" }).catch(() => undefined);
}
