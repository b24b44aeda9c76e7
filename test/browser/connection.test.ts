/**
 * Connecting with a token, reconnecting with backoff, rebinding after a listener restart, and the page's first
 * bind: the session, its newest messages, its state and the model lists in one flight (docs/web.md, Connection).
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, openPage, typeAndSend, VIEWPORTS } from "../support/browser.js";
import { startFakeOpenAi, writeFakeModelsJson, type FakeOpenAiServer } from "../support/fake-openai.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { portForRestart } from "../support/restart-port.js";
import { TestClient } from "../support/ws-client.js";

let browser: Browser;
let model: FakeOpenAiServer;

before(async () => {
	browser = await launchBrowser();
	model = await startFakeOpenAi();
});

after(async () => {
	await browser?.close();
	await model?.close();
});

/**
 * An init script that records, in the page, each WebSocket it opens with the page's clock time (Playwright's fake
 * clock where installed) at opening and at close, so a test can wait until the page has handled a close. The
 * sockets themselves behave as before.
 */
function recordSockets(): void {
	const Native = window.WebSocket;
	const log: Array<{ openedAt: number; closedAt?: number }> = [];
	(window as any).socketLog = log;
	window.WebSocket = class extends Native {
		constructor(url: string | URL, protocols?: string | string[]) {
			super(url, protocols);
			const entry: { openedAt: number; closedAt?: number } = { openedAt: Date.now() };
			log.push(entry);
			this.addEventListener("close", () => (entry.closedAt = Date.now()));
		}
	};
}

test("a token is typed, sent only as the subprotocol, and kept in sessionStorage only", async () => {
	const dir = tempDir();
	const token = "correct-horse-battery";
	writeFileSync(join(dir, "token"), token, { mode: 0o600 });
	const skiff = await startSkiff({ agentDir: tempDir(), args: ["--listen-token-file", join(dir, "token")] });
	const page = await browser.newPage();
	await page.addInitScript(recordSockets);
	const sockets: string[] = [];
	page.on("websocket", (ws) => sockets.push(ws.url()));
	try {
		await page.goto(`${skiff.url}/web`);
		await page.waitForSelector('.pill[data-status="offline"]');
		assert.match((await page.textContent(".connection .detail"))!, /needs an access token/);

		await page.fill("input[aria-label='Access token']", "wrong-token");
		await page.click("button:has-text('Connect')");
		// Once the page has handled the refused socket's close it stays offline: it never retries a socket that
		// did not open.
		await page.waitForFunction(() => (window as any).socketLog.length === 2 && (window as any).socketLog[1].closedAt !== undefined);
		await page.waitForSelector('.pill[data-status="offline"]');
		assert.equal(await page.textContent(".pill"), "offline", "a wrong token is refused");

		await page.fill("input[aria-label='Access token']", token);
		await page.click("button:has-text('Connect')");
		await page.waitForSelector('.pill[data-status="connected"]');

		assert.ok(!page.url().includes(token), "not in the page URL");
		assert.ok(sockets.every((url) => !url.includes(token)), "not in any WebSocket URL");
		assert.equal(await page.evaluate(() => document.cookie), "");
		assert.equal(await page.evaluate(() => localStorage.length), 0);
		assert.equal(await page.evaluate(() => sessionStorage.getItem("skiff.token")), token);
		assert.equal((await page.context().cookies()).length, 0);
	} finally {
		await page.close();
		await skiff.stop();
	}
});

test("after a listener restart mid-stream the page backs off, rebinds, and shows the transcript once", async () => {
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	const cwd = tempDir();
	const port = await portForRestart();
	const listen = `127.0.0.1:${port}`;
	const args = ["--model", "fake/fake-model", "--session-id", "restart-ui"];
	let skiff = await startSkiff({ agentDir, cwd, listen, args });
	const page = await browser.newPage();
	// The page's timers run on Playwright's clock, so the test moves time instead of waiting for it.
	await page.clock.install();
	await page.addInitScript(recordSockets);
	const sockets = () => page.evaluate(() => (window as any).socketLog as Array<{ openedAt: number; closedAt?: number }>);
	try {
		await page.goto(`${skiff.url}/web`);
		await page.waitForSelector('.pill[data-status="connected"]');
		await page.fill("textarea", "REPLY first finished reply");
		await page.keyboard.press("Enter");
		await page.waitForSelector(".msg.assistant:has-text('first finished reply')");

		await page.fill("textarea", "REPLY one two three four five six seven eight nine ten\nSLOW 300");
		await page.keyboard.press("Enter");
		await page.waitForSelector(".msg.assistant.streaming:has-text('two')");
		// From here the page's time moves only when the test moves it (its frames too, so it renders then).
		await page.clock.pauseAt(Date.now() + 1000);
		assert.equal(await skiff.stop("SIGTERM"), 0);

		// Each retry comes exactly its backoff after the previous socket closed: 1 s, 2 s, 4 s, 8 s, then 15 s.
		// The listener comes back on the same port before the last one, which connects.
		const delays = [1000, 2000, 4000, 8000, 15_000, 15_000, 15_000];
		for (const [i, delay] of delays.entries()) {
			await page.waitForFunction(() => (window as any).socketLog.at(-1).closedAt !== undefined, undefined, { polling: 20 });
			const before = await sockets();
			// The bar counts down to the retry: the whole wait first, its last second at the end.
			await page.clock.runFor(20);
			const countdown = (await page.textContent(".connection .detail"))!;
			assert.ok(countdown.includes(`Reconnecting in ${delay / 1000} s`), `the page says when it retries: ${countdown}`);
			await page.clock.runFor(delay - 21);
			assert.equal((await sockets()).length, before.length, `no retry ${i + 1} before ${delay} ms`);
			const detail = (await page.textContent(".connection .detail"))!;
			assert.ok(detail.includes("Reconnecting in 1 s"), `the countdown reached its last second: ${detail}`);
			if (i === 0) {
				assert.equal(await page.getAttribute(".pill", "data-status"), "reconnecting");
				assert.match((await page.textContent(".live-region"))!, /Connection lost/, "the lost connection is announced");
				// Issue 22 (item 18): a toast says it once too; only the bar counts down.
				assert.deepEqual(await page.locator(".toast").allTextContents(), ["Connection to the service lost: reconnecting…"], "one toast, without the countdown");
			}
			if (i === delays.length - 1) skiff = await startSkiff({ agentDir, cwd, listen, args });
			await page.clock.runFor(1);
			const after = await sockets();
			assert.equal(after.length, before.length + 1, `retry ${i + 1} after ${delay} ms`);
			assert.equal(after.at(-1)!.openedAt - before.at(-1)!.closedAt!, delay);
		}
		await page.clock.resume();
		await page.waitForSelector('.pill[data-status="connected"]');

		// The rebind read the snapshot: each message once, the interrupted reply kept as stopped.
		await page.waitForSelector(".msg.assistant:has-text('Stopped')");
		assert.equal(await page.locator(".msg.user").count(), 2);
		assert.equal(await page.locator(".msg.assistant").count(), 2);
		assert.equal(await page.locator(".msg.assistant:has-text('first finished reply')").count(), 1);
		assert.equal(await page.locator("button.send").isEnabled(), false, "nothing typed yet");
		await page.fill("textarea", "REPLY after the restart");
		await page.keyboard.press("Enter");
		await page.waitForSelector(".msg.assistant:has-text('after the restart')");
		assert.equal(await page.locator(".msg.user").count(), 3);
	} finally {
		await page.close();
		await skiff.stop();
	}
});

/** Each WebSocket frame of the page, in order: what it sent (a command's type) and what it received (a response's command). */
function recordFrames(page: Page): string[] {
	const frames: string[] = [];
	page.on("websocket", (socket) => {
		socket.on("framesent", ({ payload }) => frames.push(`sent ${JSON.parse(String(payload)).type}`));
		socket.on("framereceived", ({ payload }) => {
			const message = JSON.parse(String(payload)) as { type: string; command?: string };
			if (message.type === "response") frames.push(`answered ${message.command}`);
		});
	});
	return frames;
}

/** A service with the fake model, for the first-bind tests (the service stops with the test). */
async function serviceWithModel(): Promise<SkiffProcess> {
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	return startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model"] });
}

test("the first bind sends subscribe, the snapshot and the model lists in one flight, and a reply streaming meanwhile arrives whole, once", async () => {
	const skiff = await serviceWithModel();
	const writer = await openPage(browser, skiff.url, VIEWPORTS[0]);
	try {
		const words = Array.from({ length: 120 }, (_, i) => `w${i}`);
		await typeAndSend(writer, `REPLY ${words.join(" ")}\nCHUNKS 3 5\nSLOW 4`);
		await writer.waitForSelector(".msg.assistant.streaming");
		// A second page opens while the reply streams: its first bind meets events on their way.
		const context = await browser.newContext({ viewport: { width: VIEWPORTS[0].width, height: VIEWPORTS[0].height } });
		const page = await context.newPage();
		const frames = recordFrames(page);
		await page.goto(`${skiff.url}/web`);
		await page.waitForSelector('.pill[data-status="connected"]');
		const answered = frames.indexOf("answered subscribe");
		assert.ok(answered > 0, frames.join(", "));
		for (const command of ["get_messages", "get_state", "get_available_models", "get_available_thinking_levels"]) {
			const sent = frames.indexOf(`sent ${command}`);
			assert.ok(sent >= 0 && sent < answered, `${command} is sent before subscribe is answered: ${frames.join(", ")}`);
		}
		await writer.waitForSelector(".app[data-run='idle']");
		await page.waitForSelector(".app[data-run='idle']");
		const reply = await page.locator(".msg.assistant .md").last().innerText(); // the text, not the footer under it
		assert.equal(reply.trim(), words.join(" "), "every word once, in order");
		await context.close();
	} finally {
		await writer.context().close();
		await skiff.stop();
	}
});

test("a remembered session that is gone gives way to the primary, without an error", async () => {
	const skiff = await serviceWithModel();
	const page = await openPage(browser, skiff.url, VIEWPORTS[0], {
		connected: false,
		before: async (p) => {
			await p.addInitScript(() => sessionStorage.setItem("skiff.session", "00000000-0000-4000-8000-000000000000"));
		},
	});
	const client = await TestClient.connect(skiff.wsUrl);
	try {
		await page.waitForSelector('.pill[data-status="connected"]');
		const { sessionId: primary } = await client.ok({ type: "get_state" });
		assert.equal(await page.evaluate(() => sessionStorage.getItem("skiff.session")), primary, "bound to the primary");
		assert.equal(await page.locator(".toast").count(), 0, "no error toast");
		await page.waitForSelector(".transcript-content");
	} finally {
		client.close();
		await page.context().close();
		await skiff.stop();
	}
});

/**
 * An init script that records, in the page's order (`window.startOrder`): its first render (the first child of
 * #app), each command it sends, its socket's first answer, a socket that closed before opening, and the
 * registration of its service worker. Also what the first render showed (`window.firstRender`): the connection
 * status its pill said, and how often the page read the transcript's scroll height before it (a read forces the
 * browser to lay the page out then); and how far the document was read when the first socket was made, and how many
 * sockets were made before the first render.
 */
function recordStart(): void {
	const order: string[] = [];
	(window as any).startOrder = order;
	const times: Record<string, number> = {};
	(window as any).startTimes = times;
	const first = { status: "", transcriptReads: 0, socketWhile: "", sockets: 0 };
	(window as any).firstRender = first;
	const height = Object.getOwnPropertyDescriptor(Element.prototype, "scrollHeight")!;
	Object.defineProperty(Element.prototype, "scrollHeight", {
		get(this: Element) {
			if (!order.includes("rendered") && this.classList.contains("transcript")) first.transcriptReads++;
			return height.get!.call(this);
		},
	});
	new MutationObserver((_, observer) => {
		if (!document.getElementById("app")?.firstChild) return;
		order.push("rendered");
		times.rendered = performance.now();
		first.status = document.querySelector<HTMLElement>(".pill")?.dataset.status ?? "";
		observer.disconnect();
	}).observe(document, { childList: true, subtree: true });
	const register = navigator.serviceWorker.register.bind(navigator.serviceWorker);
	navigator.serviceWorker.register = (...args: Parameters<typeof register>) => (order.push("register"), register(...args));
	const Native = window.WebSocket;
	window.WebSocket = class extends Native {
		constructor(url: string | URL, protocols?: string | string[]) {
			super(url, protocols);
			times.socket ??= performance.now();
			first.socketWhile ||= document.readyState;
			if (!order.includes("rendered")) first.sockets++;
			this.addEventListener("open", () => order.includes("opened") || order.push("opened"));
			// A socket that closes before it opened (a busy service refused or dropped it): the page retries.
			let opened = false;
			this.addEventListener("open", () => (opened = true));
			this.addEventListener("close", () => opened || order.push("failed"));
			this.addEventListener("message", () => order.includes("answered") || order.push("answered"));
		}
		override send(data: Parameters<WebSocket["send"]>[0]): void {
			order.push(`sent ${JSON.parse(String(data)).type}`);
			super.send(data);
		}
	};
}

/** Opens the page on a service of its own, in a context of its own (so its worker too), recording its start; `check` once connected. */
async function checkStart(check: (page: Page, url: string) => Promise<void>): Promise<void> {
	const skiff = await serviceWithModel();
	const context = await browser.newContext({ viewport: { width: VIEWPORTS[0].width, height: VIEWPORTS[0].height } });
	const page = await context.newPage();
	await page.addInitScript(recordStart);
	try {
		await page.goto(`${skiff.url}/web`);
		await page.waitForSelector('.pill[data-status="connected"]');
		await check(page, skiff.url);
	} finally {
		await context.close();
		await skiff.stop();
	}
}

const startOrder = (page: Page): Promise<string[]> => page.evaluate(() => (window as any).startOrder);

test("the page registers its service worker only once it has bound to its session, not while its socket opens", () =>
	checkStart(async (page, url) => {
		assert.equal(await page.evaluate(async () => (await navigator.serviceWorker.ready).scope), `${url}/web`, "registered all the same");
		assert.deepEqual((await startOrder(page)).filter((step) => step === "answered" || step === "register"), ["answered", "register"]);
	}));

test("the page sends its first bind's commands as its socket opens and renders once they are answered: its first render is of the bound session", () =>
	checkStart(async (page) => {
		const order = await startOrder(page);
		const rendered = order.indexOf("rendered");
		const opened = order.indexOf("opened");
		assert.ok(opened >= 0 && order[opened + 1] === "sent subscribe", `the first bind goes out as the socket opens: ${order.join(", ")}`);
		for (const command of ["get_messages", "get_state", "get_available_models", "get_available_thinking_levels"]) {
			const sent = order.indexOf(`sent ${command}`);
			assert.ok(sent > opened && sent < order.indexOf("answered"), `${command} is sent with subscribe, before its answer: ${order.join(", ")}`);
		}
		const first = await page.evaluate(() => (window as any).firstRender as { status: string; transcriptReads: number; socketWhile: string; sockets: number });
		// The socket opens as the document is read, before the script is parsed and run, which takes it over.
		assert.equal(first.socketWhile, "loading", "the socket is made while the document is read");
		if (!order.includes("failed")) assert.equal(first.sockets, 1, "one socket: the script takes over the early one");
		if (first.status !== "connected") {
			// The first socket failed (the page renders then, and retries), or the bind took longer than the page waits
			// for it (a loaded machine): the page rendered at its deadline, not before.
			if (order.indexOf("failed") >= 0 && order.indexOf("failed") < rendered) return;
			const times = await page.evaluate(() => (window as any).startTimes);
			assert.ok(times.rendered - times.socket >= 140, `rendered ${Math.round(times.rendered - times.socket)} ms after opening its socket, unbound (${first.status}): ${order.join(", ")}`);
			return;
		}
		assert.ok(order.indexOf("answered") < rendered, order.join(", "));
		// A new session has no conversation to keep at its bottom: its first render reads no size of the transcript,
		// which would lay the page out before its frame does.
		assert.equal(first.transcriptReads, 0, "the transcript's height is not read by the first render");
	}));
