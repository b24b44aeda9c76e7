/**
 * A reply without spaces (issue 22, item 5): a 15,000-character word shows as it streams and grows, instead of
 * staying invisible until its end (the redaction of streams held back the unfinished word whole).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { newSession, openPage, typeAndSend, useChatService, VIEWPORTS } from "../support/browser.js";

const chat = useChatService();

/** The characters of the streaming reply shown now (-1 once it is no longer streaming). */
function streamingLength(page: Page): Promise<number> {
	return page.evaluate(() => document.querySelector(".msg.assistant.streaming")?.textContent?.length ?? -1);
}

for (const viewport of VIEWPORTS) {
	describe(`a long unbroken reply at ${viewport.name} size`, () => {
		let page: Page;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport);
			await newSession(page, viewport);
		});
		after(() => page?.context().close());

		test("shows as it streams and grows before its end, wrapped inside the view", async () => {
			const word = "Qx7".repeat(5000);
			await typeAndSend(page, `REPLY ${word}\nCHUNKS 40 7\nSLOW 3`);
			await page.waitForSelector(".msg.assistant.streaming");
			await page.waitForFunction(() => (document.querySelector(".msg.assistant.streaming")?.textContent?.length ?? 0) > 1000);
			const first = await streamingLength(page);
			await page.waitForFunction((n) => (document.querySelector(".msg.assistant.streaming")?.textContent?.length ?? 0) > n + 1000, first);
			assert.ok((await streamingLength(page)) > 0, "still streaming while it grew");
			const overflow = await page.evaluate(() => {
				const transcript = document.querySelector(".transcript")!;
				return transcript.scrollWidth - transcript.clientWidth;
			});
			assert.equal(overflow, 0, "the word wraps inside the view");
			await page.waitForSelector(".app[data-run='idle']");
			assert.ok((await page.textContent(".msg.assistant:last-of-type"))!.includes(word));
		});
	});
}
