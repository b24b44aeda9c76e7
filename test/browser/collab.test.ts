/**
 * The page's collaboration modules in Chromium (bundled from web/src/collab/, loaded into the page the guest
 * link opens): the known-answer vectors on the browser's WebCrypto, and a guest following a streaming run of the
 * real skiff with the fake model while the host drives it over /ws. The key never leaves the page.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../support/browser.js";
import { collabBrowserBundle } from "../support/collab-browser-bundle.js";
import { COLLAB_VECTORS } from "../support/collab-vectors.js";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

let browser: Browser;
let model: FakeOpenAiServer;
let skiff: SkiffProcess;
let host: TestClient;
let bundle: string;

before(async () => {
	[browser, model, bundle] = await Promise.all([launchBrowser(), startFakeOpenAi(), collabBrowserBundle()]);
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model"] });
	host = await TestClient.connect(skiff.wsUrl);
});

after(async () => {
	host?.close();
	await browser?.close();
	await skiff?.stop();
	await model?.close();
});

/** Opens a guest link (skiff's own page and headers) in a new page, with the collaboration modules loaded into it. */
async function openGuestPage(link: string): Promise<{ page: Page; requests: string[] }> {
	const page = await browser.newPage();
	const requests: string[] = [];
	page.on("request", (r) => requests.push(r.url()));
	page.on("websocket", (ws) => requests.push(ws.url()));
	const response = await page.goto(link);
	assert.match((await response!.allHeaders())["content-security-policy"] ?? "", /connect-src ws:\/\/\S+\/collab\/ws\/[\w-]{22} /, "the guest page may connect to its room");
	await page.addScriptTag({ content: bundle });
	return { page, requests };
}

test("the known-answer vectors hold on Chromium's WebCrypto", async () => {
	const room = await host.ok({ type: "collab_start" });
	const { page } = await openGuestPage(room.viewLink);
	try {
		const results = await page.evaluate((cases) => (globalThis as any).skiffCollab.computeVectors(cases), COLLAB_VECTORS);
		assert.equal(results.length, COLLAB_VECTORS.length);
		COLLAB_VECTORS.forEach((c, i) => {
			const r = results[i]!;
			assert.equal(r.capability, c.capability, c.name);
			assert.deepEqual(r.guestToHost, c.guestToHost, c.name);
			assert.deepEqual(r.hostToGuest, c.hostToGuest, c.name);
			c.frames.forEach((f, j) => assert.deepEqual(r.frames[j], { sealed: f.frame, opened: f.plaintext, tampered: "authentication" }, `${c.name} frame ${j}`));
		});
	} finally {
		await page.close();
		await host.ok({ type: "collab_stop", roomId: room.roomId });
	}
});

test("a guest in Chromium follows the host's streaming run and prompts; its key never leaves the page", async () => {
	const room = await host.ok({ type: "collab_start" });
	const key = room.controlLink.split("#c=")[1]!;
	const { page, requests } = await openGuestPage(room.controlLink);
	try {
		// The page's own guest view has already read the link and removed its fragment: this guest reads it as given.
		const read = await page.evaluate((href) => {
			const { parseGuestLink, GuestConnection } = (globalThis as any).skiffCollab;
			const result = parseGuestLink(href);
			const seen: any = { states: [], snapshots: [], events: [], hashAfter: location.hash, ok: result.ok };
			(globalThis as any).seen = seen;
			if (!result.ok) return seen;
			const guest = new GuestConnection(result.link);
			(globalThis as any).guest = guest;
			guest.onState((s: any) => seen.states.push(s.status));
			guest.onSnapshot((s: any) => seen.snapshots.push(s));
			guest.onEvent((e: any) => seen.events.push(e));
			guest.start();
			return { ok: seen.ok, hashAfter: seen.hashAfter };
		}, room.controlLink);
		assert.deepEqual(read, { ok: true, hashAfter: "" }, "the key is read, and gone from the address bar");
		assert.ok(!page.url().includes(key));
		await page.waitForFunction(() => (globalThis as any).guest.state.status === "connected");

		const from = host.events.length;
		await host.ok({ type: "prompt", message: "REPLY streamed to the guest in many small words\nSLOW 5" });
		const end = await host.waitForEvent((e) => e.type === "agent_end", 20_000, from);
		await page.waitForFunction((seq) => (globalThis as any).seen.events.some((e: any) => e.type === "agent_end" && e.seq === seq), end.seq);
		const guestText = await page.evaluate(() =>
			(globalThis as any).seen.events
				// The last word, held back while it streamed, comes with text_end.
				.filter((e: any) => e.type === "message_update" && /^text_(delta|end)$/.test(e.assistantMessageEvent.type))
				.map((e: any) => e.assistantMessageEvent.delta ?? "")
				.join(""),
		);
		assert.equal(guestText, "streamed to the guest in many small words");

		const fromGuest = host.events.length;
		const answer = await page.evaluate(() => (globalThis as any).guest.prompt("REPLY hello host"));
		assert.equal(answer.success, true);
		await host.waitForEvent((e) => e.type === "message_end" && e.message.role === "assistant" && JSON.stringify(e.message).includes("hello host"), 20_000, fromGuest);

		await host.ok({ type: "collab_stop", roomId: room.roomId });
		await page.waitForFunction(() => (globalThis as any).guest.state.status === "ended");
		assert.equal(await page.evaluate(() => (globalThis as any).guest.state.detail), "The host stopped sharing this session.");
		assert.ok(requests.length > 0);
		assert.ok(requests.every((url) => !url.includes(key)), "no request carries the key");
		assert.ok(requests.some((url) => url.endsWith(`/collab/ws/${room.roomId}`) && url.startsWith("ws://")), "the guest's socket");
	} finally {
		await page.close();
	}
});
