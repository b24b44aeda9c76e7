/**
 * Sending with no model set up (issue 22, item 17): the composer says plainly that nothing was sent, and the setup
 * card's example starts the service the way it was started (`npm start` from a checkout, not `skiff`).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { allStarted, type ChatService, launchBrowser, openPage, startChatService, typeAndSend, VIEWPORTS } from "../support/browser.js";

let browser: Browser;
let bare: ChatService;

before(async () => {
	// As `npm start` runs it: npm names the script it runs in npm_lifecycle_event.
	await allStarted([launchBrowser().then((b) => (browser = b)), startChatService({ models: false, env: { npm_lifecycle_event: "start" } }).then((s) => (bare = s))]);
});

after(async () => {
	await browser?.close();
	await bare?.close();
});

for (const viewport of VIEWPORTS) {
	describe(`no model at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		test("the setup card's example is the command that started the service; a send says at the composer that it was not sent", async () => {
			const page = await openPage(browser, bare.skiff.url, viewport);
			try {
				const card = page.locator(".transcript .setup-card");
				await card.waitFor();
				await page.waitForSelector(".setup-card code:has-text('ANTHROPIC_API_KEY=sk-ant-… npm start')");
				assert.equal(await page.locator(".composer-note").count(), 0, "no note before a send");

				await typeAndSend(page, "hello with no model");
				const note = page.locator(".composer-note");
				await note.waitFor();
				assert.match((await note.textContent())!, /Not sent: no model is set up/);
				assert.ok(await note.isVisible());
				assert.equal(await page.inputValue("#composer"), "hello with no model", "the text stays");
				assert.equal(await page.locator(".toast").count(), 0, "said at the composer, not in a passing toast");
			} finally {
				await page.context().close();
			}
		});
	});
}
