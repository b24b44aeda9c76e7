/**
 * A service without a model: a setup card in the transcript that stays (with the service's own paths once a
 * prompt has failed), no "unknown" model anywhere, the model list's empty state. With a model: the thinking
 * selector is disabled, with the reason, when the model thinks at no level but off. (The saved settings, the
 * memory backend's among them, are in settings-panel.test.ts.)
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { allStarted, type ChatService, launchBrowser, openPage, settled, showPanel, startChatService, typeAndSend, VIEWPORTS } from "../support/browser.js";

let browser: Browser;
let bare: ChatService;
let configured: ChatService;

before(async () => {
	await allStarted([
		launchBrowser().then((b) => (browser = b)),
		startChatService({ models: false }).then((s) => (bare = s)),
		startChatService({ args: ["--model", "fake/fake-model"] }).then((s) => (configured = s)),
	]);
});

after(async () => {
	await browser?.close();
	await bare?.close();
	await configured?.close();
});

for (const viewport of VIEWPORTS) {
	describe(`setup and settings at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		test("no model: a lasting setup card with the service's paths, no 'unknown', and the model list's empty state", async () => {
			const page = await openPage(browser, bare.skiff.url, viewport);
			try {
				const card = page.locator(".transcript .setup-card");
				await card.waitFor();
				assert.match((await card.textContent())!, /ANTHROPIC_API_KEY/);
				assert.match((await card.textContent())!, /models\.json/);
				assert.match((await card.locator("pre").textContent())!, /"baseUrl": "http:\/\/127\.0\.0\.1:11434\/v1"/, "an Ollama example");
				assert.doesNotMatch((await page.textContent("header.top"))!, /unknown/);

				await typeAndSend(page, "hello there");
				await page.waitForSelector(`.setup-card code:has-text(${JSON.stringify(`${bare.agentDir}/auth.json`)})`);
				assert.equal(await page.inputValue("#composer"), "hello there", "the text stays to send once a model is set up");
				assert.equal(await page.locator(".toast").count(), 0, "the card says it, not a passing toast");
				await settled(page);
				assert.equal(await card.isVisible(), true, "the card stays");

				await showPanel(page, viewport, "settings");
				await page.waitForSelector(".settings .empty-state:has-text('No models available')");
				assert.equal(await page.locator(".settings select[name='model']").count(), 0);
				assert.doesNotMatch((await page.textContent("aside.panels"))!, /unknown/);
			} finally {
				await page.context().close();
			}
		});

		test("a model without thinking levels: the selector is disabled and says why", async () => {
			const page = await openPage(browser, configured.skiff.url, viewport);
			try {
				assert.equal(await page.locator(".setup-card").count(), 0);
				await showPanel(page, viewport, "settings");
				const thinking = page.locator(".settings select[name='thinking']");
				await thinking.waitFor();
				assert.equal(await thinking.isDisabled(), true);
				const reason = await page.locator(`#${await thinking.getAttribute("aria-describedby")}`).textContent();
				assert.match(reason!, /fake-model does not think/);

				// A model that thinks: the selector is enabled.
				await page.selectOption(".settings select[name='model']", "fake/fake-reasoner");
				await page.waitForFunction(() => !(document.querySelector(".settings select[name='thinking']") as HTMLSelectElement).disabled);
				assert.equal(await page.locator("#thinking-reason").count(), 0);
				await page.selectOption(".settings select[name='model']", "fake/fake-model");
				await page.waitForFunction(() => (document.querySelector(".settings select[name='thinking']") as HTMLSelectElement).disabled);
			} finally {
				await page.context().close();
			}
		});
	});
}
