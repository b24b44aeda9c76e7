/**
 * Knowing when it is done, projects and the installable page, in Chromium at both sizes: the tab's title and icon
 * follow a run (running, done, needs attention) and go back once the user acts; with notifications switched on in
 * Settings, a run of another session that ends while the page is hidden (visibility emulated: a headless tab is
 * never hidden) shows a notification naming it (and beeps, with the sound on), and clicking it brings the tab to
 * that session; a session started
 * in a second folder from the project picker is recorded there and the header names its project, while a file or
 * a missing folder is refused in the picker; the page links its manifest, registers its worker, and opened while
 * the service is down shows the worker's offline screen (its cache holds nothing else).
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { newSession, openPage, runPrompt, showPanel, typeAndSend, useChatService, type Viewport, VIEWPORTS } from "../support/browser.js";
import { tempDir } from "../support/skiff-process.js";

const chat = useChatService();
const root = tempDir();

/**
 * Records the notifications the page shows (the real ones, permission granted), and lets the test hide the
 * page: headless Chromium never hides a tab, so `visibilityState` answers what the test sets.
 */
const WATCH = `
	window.__shown = [];
	const Real = window.Notification;
	window.Notification = class extends Real { constructor(title, options) { super(title, options); window.__shown.push({ title, body: options && options.body, note: this }); } };
	window.__beeps = 0;
	const RealAudio = window.AudioContext;
	window.AudioContext = class extends RealAudio { constructor() { super(); window.__beeps++; } };
	Object.defineProperty(Document.prototype, "visibilityState", { configurable: true, get: () => (window.__hidden ? "hidden" : "visible") });
	Object.defineProperty(Document.prototype, "hidden", { configurable: true, get: () => Boolean(window.__hidden) });
`;

/** Hides the page or shows it again; hidden, it draws no frames, as a hidden tab does not (so no re-render). */
async function setHidden(page: Page, hidden: boolean): Promise<void> {
	await page.evaluate((h) => {
		const w = window as any;
		w.__hidden = h;
		if (h) {
			w.__frame = w.requestAnimationFrame;
			w.__waiting = [];
			w.requestAnimationFrame = (callback: FrameRequestCallback) => w.__waiting.push(callback);
		} else {
			w.requestAnimationFrame = w.__frame;
			for (const callback of w.__waiting) w.__frame(callback);
		}
		document.dispatchEvent(new Event("visibilitychange"));
	}, hidden);
}

/** A prompt whose run waits (in a bash call) until the test creates `gate`. */
function gatedPrompt(title: string, gate: string): string {
	return `${title}\nRUN until [ -e '${gate}' ]; do sleep 0.05; done; echo released\nAFTER_TOOL finished`;
}

const title = (page: Page) => page.evaluate(() => document.title);
const waitTitle = (page: Page, pattern: RegExp) => page.waitForFunction((source) => new RegExp(source).test(document.title), pattern.source);
const iconHref = (page: Page) => page.evaluate(() => decodeURIComponent(document.querySelector("link[rel=icon]")?.getAttribute("href") ?? ""));

/** The sessions panel's project picker, open. */
async function openPicker(page: Page, viewport: Viewport): Promise<void> {
	await showPanel(page, viewport, "sessions");
	await page.click("button:has-text('New in…')");
	await page.waitForSelector("dialog.projects[open]");
}

for (const viewport of VIEWPORTS) {
	describe(`knowing when it is done at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let page: Page;
		const tag = viewport.name;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport, {
				before: async (p) => {
					await p.context().grantPermissions(["notifications"], { origin: chat.service.skiff.url });
					await p.addInitScript({ content: WATCH });
				},
			});
		});
		after(() => page?.context().close());

		test("the tab's title and icon say the run is going, then done, then the title rests once the user acts", async () => {
			await newSession(page, viewport);
			const gate = join(root, `title-${tag}`);
			await typeAndSend(page, gatedPrompt(`Title watch ${tag}`, gate));
			await waitTitle(page, /^Running: Title watch \w+ · Skiff$/);
			assert.match(await iconHref(page), /<circle[^>]+fill="#e39b00"/, "a running dot");
			writeFileSync(gate, "");
			await waitTitle(page, /^Done: Title watch \w+ · Skiff$/);
			assert.match(await iconHref(page), /<circle[^>]+fill="#1f9d55"/, "a done dot");
			await page.locator("#composer").press("Shift");
			await waitTitle(page, /^Title watch \w+ · Skiff$/);
			assert.doesNotMatch(await iconHref(page), /<circle/, "no dot once seen");

			// A failed run needs attention.
			await runPrompt(page, "ERROR 400 the model refused this request");
			await waitTitle(page, /^Needs attention: Title watch \w+ · Skiff$/);
			assert.match(await iconHref(page), /<circle[^>]+fill="#d93025"/);
			await page.locator("#composer").press("Shift");
			await waitTitle(page, /^Title watch \w+ · Skiff$/);
		});

		test("with notifications on, a run of another session that ends while the page is hidden is notified; the click brings that session", async () => {
			await showPanel(page, viewport, "settings");
			const toggle = page.getByLabel("Show a notification");
			assert.equal(await toggle.isChecked(), false, "off until chosen");
			await toggle.check();
			await page.waitForFunction(() => localStorage.getItem("skiff.alerts.notify") === "on");
			await page.getByLabel("Play a short sound").check();
			assert.equal(await page.evaluate(() => localStorage.getItem("skiff.alerts.sound")), "on");
			if (viewport.phone) await page.click("button.panel-close");

			await newSession(page, viewport);
			const gate = join(root, `notify-${tag}`);
			await typeAndSend(page, gatedPrompt(`Notified session ${tag}`, gate));
			await waitTitle(page, /^Running: Notified session/);
			await newSession(page, viewport); // the page now shows another session, and still follows the running one
			await setHidden(page, true);
			writeFileSync(gate, "");
			await page.waitForFunction(() => (window as any).__shown.length > 0);
			const shown = await page.evaluate(() => (window as any).__shown.map((n: { title: string; body: string }) => ({ title: n.title, body: n.body })));
			assert.deepEqual(shown, [{ title: `Notified session ${tag}`, body: "The run is done." }]);
			assert.equal(await page.evaluate(() => (window as any).__beeps), 1, "one beep");
			// Without a frame drawn since it was hidden: the title changes all the same.
			assert.equal(await title(page), `Done: Notified session ${tag} · Skiff`, "the title names the session that is done");

			await page.evaluate(() => (window as any).__shown[0].note.dispatchEvent(new Event("click")));
			await setHidden(page, false);
			await page.waitForSelector(`.top .title:has-text('Notified session ${tag}')`);
			await page.waitForSelector(".msg.assistant:has-text('finished')");
		});

		test("a session started in a second folder is recorded there and the header names its project; a file or a missing folder is refused", async () => {
			const second = join(root, `second-project-${tag}`);
			mkdirSync(second);
			const file = join(root, `notes-${tag}.txt`);
			writeFileSync(file, "x");
			await openPicker(page, viewport);
			const field = page.getByLabel("Folder");
			await field.fill(file);
			await field.press("Enter");
			await page.waitForSelector(`#projects-error:has-text('is a regular file, not a directory')`);
			assert.equal(await field.getAttribute("aria-invalid"), "true");
			await field.fill(join(root, "nowhere"));
			await page.click("dialog.projects button:has-text('Start')");
			await page.waitForSelector(`#projects-error:has-text('does not exist')`);
			assert.equal(await field.inputValue(), join(root, "nowhere"), "the field keeps what was typed");

			await field.fill(second);
			await field.press("Enter");
			await page.waitForSelector("dialog.projects", { state: "detached" });
			await page.waitForSelector(`.top .project:has-text('second-project-${tag}')`);
			if (viewport.phone) await page.waitForSelector(".app:not(.panel-open)");
			await runPrompt(page, `Second folder question ${tag}\nREPLY recorded`);

			// Listed first among the projects (most recent), with its session.
			await openPicker(page, viewport);
			const first = page.locator(".project-list li").first();
			await page.waitForFunction((dir) => document.querySelector(".project-list li .option-meta")?.textContent === dir, second);
			assert.match(await first.innerText(), /1 session/);
			assert.match(await first.innerText(), /current/);
			await page.keyboard.press("Escape");
			await page.waitForSelector("dialog.projects", { state: "detached" });
			// The header stays within the window (the project name is short on a phone).
			assert.equal(await page.evaluate(() => document.querySelector(".top")!.scrollWidth <= document.querySelector(".top")!.clientWidth), true);
		});
	});
}

test("notifications blocked for the site: the switch says so and stays off", async () => {
	const page = await openPage(chat.browser, chat.service.skiff.url, VIEWPORTS[0], { before: async (p) => void (await p.addInitScript({ content: "Object.defineProperty(Notification, 'permission', { get: () => 'denied' });" })) });
	try {
		await showPanel(page, VIEWPORTS[0], "settings");
		const toggle = page.getByLabel("Show a notification");
		assert.equal(await toggle.isDisabled(), true);
		assert.equal(await toggle.isChecked(), false);
		assert.match(await page.locator("#alerts-notify-why").innerText(), /blocked for this site/);
	} finally {
		await page.context().close();
	}
});

test("the page links its manifest and registers its worker; opened while the service is down, it shows the offline screen", async () => {
	const page = await openPage(chat.browser, chat.service.skiff.url, VIEWPORTS[1]);
	try {
		assert.equal(await page.evaluate(() => document.querySelector("link[rel=manifest]")?.getAttribute("href")), "/web/manifest.webmanifest");
		const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
		assert.equal(scope, `${chat.service.skiff.url}/web`);
		await page.reload();
		await page.waitForSelector('.pill[data-status="connected"]');
		assert.equal(await page.evaluate(() => Boolean(navigator.serviceWorker.controller)), true, "the worker controls the page");
		await runPrompt(page, "Worker question\nREPLY fine");
		const cached = await page.evaluate(async () => {
			const keys: string[] = [];
			for (const name of await caches.keys()) for (const request of await (await caches.open(name)).keys()) keys.push(new URL(request.url).pathname);
			return keys;
		});
		assert.deepEqual(cached, ["/web/offline"], "nothing but the offline screen: never /rpc, /ws or the page's data");
		await chat.service.skiff.stop();
		await page.reload();
		await page.waitForSelector("h1:has-text('The service is not reachable')");
		assert.equal(await page.locator("a:has-text('Try again')").getAttribute("href"), "/web");
	} finally {
		await page.context().close();
	}
});
