/**
 * Rename (issue 22, item 10): the field starts with the session's title, and Enter on an empty name says that a
 * session needs one, keeping the field open.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { newSession, openPage, runPrompt, showPanel, useChatService, VIEWPORTS } from "../support/browser.js";

const chat = useChatService();

for (const viewport of VIEWPORTS) {
	describe(`rename at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let page: Page;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport);
			await newSession(page, viewport);
		});
		after(() => page?.context().close());

		test("the field is prefilled with the title; an empty name is refused with a sentence and the field stays", async () => {
			const first = `plan the trip ${viewport.name}`;
			await runPrompt(page, first);
			await page.waitForSelector(`.top .title:has-text('${first}')`);
			await showPanel(page, viewport, "sessions");
			await page.click("button:has-text('Rename')");
			const field = page.locator("input[aria-label='Session name']");
			await field.waitFor();
			assert.equal(await field.inputValue(), first, "prefilled with the title shown");
			assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).selectionEnd), first.length, "selected, to type over");

			await field.fill("");
			await field.press("Enter");
			const error = page.locator("#rename-error");
			await error.waitFor();
			assert.match((await error.textContent())!, /needs a name/);
			assert.equal(await page.locator("form.rename").count(), 1, "the form stays open");
			assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("aria-label")), "Session name");

			await field.fill(`Trip ${viewport.name}`);
			await field.press("Enter");
			await page.waitForSelector(`.top .title:has-text('Trip ${viewport.name}')`);
			await page.click("button:has-text('Rename')");
			assert.equal(await page.locator("input[aria-label='Session name']").inputValue(), `Trip ${viewport.name}`, "then its name");
			await page.keyboard.press("Escape");
		});
	});
}
