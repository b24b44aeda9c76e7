/**
 * The "queued message was not delivered" note (issue 22, item 7): it goes once it no longer applies (the box
 * emptied, the conversation moved on its tree) and belongs to its session.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { newSession, openPage, runPrompt, settled, showPanel, typeAndSend, useChatService, VIEWPORTS } from "../support/browser.js";

const chat = useChatService();

/** A reply that streams all but its last word and then holds (HOLD, never released): the stop ends it. */
const HELD_REPLY = `REPLY ${Array.from({ length: 24 }, (_, i) => `word${i}`).join(" ")}\nHOLD until-stopped`;

/** A steer the run does not take (the run is stopped first): its text comes back with the note. */
async function giveBack(page: Page, marker: string): Promise<void> {
	await typeAndSend(page, HELD_REPLY);
	await page.waitForSelector(".msg.assistant.streaming:has-text('word1')");
	await typeAndSend(page, `REPLY ${marker}`);
	await page.locator(".msg.user.pending", { hasText: marker }).waitFor();
	await page.click("button.abort");
	await page.waitForSelector(".composer-note:has-text('not delivered')");
	await page.waitForSelector(".app[data-run='idle']");
}

for (const viewport of VIEWPORTS) {
	describe(`the given-back note at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let page: Page;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport);
			await newSession(page, viewport);
		});
		after(() => page?.context().close());

		test("emptying the box takes the note away, and it does not come back after a session switch", async () => {
			await giveBack(page, `emptied-${viewport.name}`);
			await page.fill("#composer", "");
			await page.waitForSelector(".composer-note", { state: "detached" });
			const first = await page.evaluate(() => sessionStorage.getItem("skiff.session"));
			await newSession(page, viewport);
			assert.equal(await page.locator(".composer-note").count(), 0);
			await showPanel(page, viewport, "sessions");
			await page.click(`.session-list li:has-text('word0') .session-open`);
			await page.waitForFunction((id) => sessionStorage.getItem("skiff.session") === id, first);
			await settled(page);
			assert.equal(await page.locator(".composer-note").count(), 0, "gone for good");
		});

		test("the note belongs to its session: not shown in another, back with its text on return", async () => {
			await newSession(page, viewport);
			const marker = `kept-${viewport.name}`;
			await giveBack(page, marker);
			const first = await page.evaluate(() => sessionStorage.getItem("skiff.session"));
			await newSession(page, viewport);
			assert.equal(await page.locator(".composer-note").count(), 0, "not in another session");
			await showPanel(page, viewport, "sessions");
			await page.locator(".session-list li", { hasText: "word0" }).first().locator(".session-open").click();
			await page.waitForFunction((id) => sessionStorage.getItem("skiff.session") === id, first);
			await page.waitForSelector(".composer-note:has-text('not delivered')");
			assert.match(await page.inputValue("#composer"), new RegExp(marker));
		});

		test("moving on the tree takes the note away", async () => {
			await newSession(page, viewport);
			await runPrompt(page, `REPLY first-${viewport.name}`);
			await giveBack(page, `moved-${viewport.name}`);
			await showPanel(page, viewport, "tree");
			await page.locator(".tree-row.kind-user", { hasText: `first-${viewport.name}` }).click();
			await page.click(".tree-actions button:has-text('Continue from here')");
			await page.waitForFunction(() => !document.querySelector(".transcript")?.textContent?.includes("word0"));
			await page.waitForSelector(".composer-note", { state: "detached" });
		});
	});
}
