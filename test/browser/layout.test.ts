/**
 * The frame of the page at desktop and phone sizes: the composer pinned to the bottom with the transcript
 * scrolling between it and the header, a connection bar that stays inside the main column (the side panel
 * keeps the full height), no empty blocks, and no sideways scrolling on a phone.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { allStarted, type ChatService, launchBrowser, newSession, openPage, runPrompt, settled, VIEWPORTS } from "../support/browser.js";
import { startChatService } from "../support/browser.js";
import { startSkiff, tempDir, type SkiffProcess } from "../support/skiff-process.js";

let browser: Browser;
let service: ChatService;
let tokenSkiff: SkiffProcess;

before(async () => {
	await allStarted([launchBrowser().then((b) => (browser = b)), startChatService().then((s) => (service = s))]);
	const dir = tempDir();
	writeFileSync(join(dir, "token"), "layout-token", { mode: 0o600 });
	tokenSkiff = await startSkiff({ agentDir: tempDir(), args: ["--listen-token-file", join(dir, "token")] });
});

after(async () => {
	await browser?.close();
	await service?.close();
	await tokenSkiff?.stop();
});

type Box = { top: number; bottom: number; left: number; right: number; width: number; height: number };

/** The boxes of the frame's parts (absent when not shown), and the window's size. */
function frame(page: Page) {
	return page.evaluate(() => {
		const box = (selector: string): Box | undefined => {
			const el = document.querySelector(selector);
			if (!el) return undefined;
			const r = el.getBoundingClientRect();
			return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height };
		};
		return {
			width: window.innerWidth,
			height: window.innerHeight,
			scrollWidth: document.documentElement.scrollWidth,
			scrollHeight: document.documentElement.scrollHeight,
			main: box(".main")!,
			header: box("header.top")!,
			bar: box(".connection"),
			transcript: box(".transcript")!,
			composer: box(".composer-wrap")!,
			panels: box("aside.panels")!,
			// Every block of the frame that takes space but shows nothing (the empty block of the old grid).
			emptyBlocks: [...document.querySelectorAll(".app > *, .main > *")]
				.filter((el) => {
					const r = el.getBoundingClientRect();
					const style = getComputedStyle(el);
					const hiddenAway = style.visibility === "hidden" || style.display === "none" || el.classList.contains("sr-only") || el.classList.contains("skip-link");
					return !hiddenAway && r.width > 0 && r.height > 0 && !el.textContent?.trim() && el.children.length === 0;
				})
				.map((el) => el.className),
		};
	});
}

const near = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) <= 1, `${what}: ${a} vs ${b}`);

for (const viewport of VIEWPORTS) {
	describe(`layout at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let page: Page;
		before(async () => {
			page = await openPage(browser, service.skiff.url, viewport);
		});
		after(() => page?.context().close());

		test("after one prompt in a new session the composer stays pinned to the bottom, the transcript fills the space above", async () => {
			await newSession(page, viewport);
			await runPrompt(page, "REPLY a short answer");
			await settled(page);
			const f = await frame(page);
			near(f.composer.bottom, f.height, "the composer ends at the window's bottom");
			near(f.transcript.top, f.header.bottom, "the transcript starts under the header");
			near(f.transcript.bottom, f.composer.top, "the transcript ends at the composer");
			assert.equal(f.scrollHeight, f.height, "the page itself never scrolls");
			assert.deepEqual(f.emptyBlocks, []);
		});

		test(viewport.phone ? "on a phone nothing scrolls sideways and the drawer is out of sight" : "the side panel takes the full height beside the main column", async () => {
			await settled(page);
			const f = await frame(page);
			assert.ok(f.scrollWidth <= f.width, `no sideways scrolling (${f.scrollWidth} > ${f.width})`);
			if (viewport.phone) {
				assert.ok(f.panels.left >= f.width - 1, "the drawer starts off-screen");
				assert.equal(await page.locator("aside.panels").evaluate((el) => getComputedStyle(el).visibility), "hidden");
				near(f.main.width, f.width, "the main column takes the whole width");
			} else {
				near(f.panels.top, 0, "the side panel starts at the top");
				near(f.panels.height, f.height, "the side panel has the full height");
				near(f.main.right, f.panels.left, "the main column ends where the side panel starts");
			}
		});

		test("the token prompt's connection bar sits inside the main column and keeps the grid", async () => {
			const tokenPage = await openPage(browser, tokenSkiff.url, viewport, { connected: false });
			try {
				await tokenPage.waitForSelector(".connection input[aria-label='Access token']");
				await settled(tokenPage);
				const f = await frame(tokenPage);
				assert.ok(f.bar, "the bar shows");
				near(f.bar.top, f.header.bottom, "the bar is under the header");
				near(f.bar.left, f.main.left, "the bar starts with the main column");
				near(f.bar.right, f.main.right, "the bar ends with the main column");
				near(f.transcript.top, f.bar.bottom, "the transcript follows the bar");
				near(f.composer.bottom, f.height, "the composer stays at the bottom");
				if (!viewport.phone) near(f.panels.height, f.height, "the side panel keeps the full height");
				assert.deepEqual(f.emptyBlocks, []);
				assert.ok(f.scrollWidth <= f.width, "no sideways scrolling");
			} finally {
				await tokenPage.context().close();
			}
		});
	});
}
