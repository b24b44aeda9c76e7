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
	// Service workers exist only in secure contexts (HTTPS, localhost).
	navigator.serviceWorker?.register("/web/sw.js", { scope: "/web" }).catch(() => undefined);
}
