/**
 * The page's service worker, run as the browser runs it (its script text in a context of its own, with fake
 * `caches` and `fetch`): it answers only navigations to /web, never stores a response (so nothing of /rpc, /ws,
 * /export or the token), and opens to the offline screen when the service cannot be reached.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runInNewContext } from "node:vm";
import { OFFLINE_KEY, SERVICE_WORKER_SCRIPT, SHELL_CACHE } from "../../../src/listener/service-worker.js";

const ORIGIN = "http://127.0.0.1:7000";

function worker(network: (request: { url: string }) => Promise<Response>) {
	const stored: Array<{ cache: string; key: string; body: Promise<string> }> = [];
	const deleted: string[] = [];
	const cacheNames = new Set(["skiff-shell-v0", SHELL_CACHE]);
	const listeners = new Map<string, (event: any) => void>();
	const caches = {
		open: async (name: string) => ({
			put: async (key: string, response: Response) => void stored.push({ cache: name, key, body: response.text() }),
			match: async (key: string) => {
				const hit = stored.find((entry) => entry.cache === name && entry.key === key);
				return hit ? new Response(await hit.body, { headers: { "Content-Type": "text/html" } }) : undefined;
			},
		}),
		keys: async () => [...cacheNames],
		delete: async (name: string) => (deleted.push(name), cacheNames.delete(name)),
	};
	const self = {
		location: new URL(`${ORIGIN}/web/sw.js`),
		addEventListener: (type: string, listener: (event: any) => void) => listeners.set(type, listener),
		skipWaiting: async () => undefined,
		clients: { claim: async () => undefined },
	};
	runInNewContext(SERVICE_WORKER_SCRIPT, { self, caches, fetch: network, Response, URL, Promise });
	const lifecycle = async (type: string) => {
		let done: Promise<unknown> = Promise.resolve();
		listeners.get(type)!({ waitUntil: (promise: Promise<unknown>) => void (done = promise) });
		await done;
	};
	/** Dispatches a fetch; resolves the worker's answer, or undefined when it let the browser fetch it itself. */
	const fetchEvent = async (path: string, init: { mode?: string; method?: string; origin?: string } = {}) => {
		let answer: Promise<Response> | undefined;
		const request = { url: `${init.origin ?? ORIGIN}${path}`, mode: init.mode ?? "cors", method: init.method ?? "GET" };
		listeners.get("fetch")!({ request, respondWith: (response: Promise<Response>) => void (answer = response) });
		return answer;
	};
	return { stored, deleted, lifecycle, fetchEvent };
}

test("installing keeps only the offline screen; activating drops an older version's cache", async () => {
	const sw = worker(async () => new Response("page"));
	await sw.lifecycle("install");
	assert.deepEqual(
		sw.stored.map(({ cache, key }) => [cache, key]),
		[[SHELL_CACHE, OFFLINE_KEY]],
	);
	assert.match(await sw.stored[0]!.body, /The service is not reachable/);
	await sw.lifecycle("activate");
	assert.deepEqual(sw.deleted, ["skiff-shell-v0"]);
});

test("/rpc, /ws, /export and everything but a navigation to /web pass by the worker, and nothing is ever stored", async () => {
	const fetched: string[] = [];
	const sw = worker(async (request) => (fetched.push(request.url), new Response("from the network")));
	await sw.lifecycle("install");
	const before = sw.stored.length;
	for (const [path, init] of [
		["/rpc", { method: "POST" }],
		["/rpc", {}],
		["/rpc", { mode: "navigate" }],
		["/ws", {}],
		["/ws", { mode: "navigate" }],
		["/export/abc.html", {}],
		["/export/abc.html", { mode: "navigate" }],
		["/web/manifest.webmanifest", {}],
		["/web", { mode: "navigate", method: "POST" }],
		["/web", { mode: "navigate", origin: "http://elsewhere.example" }],
		["/web", {}],
	] as const) {
		assert.equal(await sw.fetchEvent(path, init), undefined, `${init.mode ?? "cors"} ${init.method ?? "GET"} ${path}`);
	}
	// The page itself comes from the network as it is, and is not kept.
	const page = await sw.fetchEvent("/web", { mode: "navigate" });
	assert.equal(await page!.text(), "from the network");
	assert.equal(await (await sw.fetchEvent("/web/?x=1", { mode: "navigate" }))!.text(), "from the network");
	assert.deepEqual(fetched, [`${ORIGIN}/web`, `${ORIGIN}/web/?x=1`]);
	assert.equal(sw.stored.length, before, "no response was stored");
});

test("the page opened while the service is down shows the offline screen, with a way to try again", async () => {
	const sw = worker(async () => Promise.reject(new TypeError("Failed to fetch")));
	await sw.lifecycle("install");
	const answer = await sw.fetchEvent("/web", { mode: "navigate" });
	const html = await answer!.text();
	assert.match(html, /<h1>The service is not reachable<\/h1>/);
	assert.match(html, /href="\/web">Try again/);
	assert.doesNotMatch(html, /<script/);
});
