/**
 * Following the conversation: the view stays at the newest message while the reader is there, whatever changes
 * height (a long markdown reply settling, an image loading); only the reader's own scroll stops it, and "Jump
 * to latest" (with the count of new messages) brings it back; a long session opens at its newest message.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { distanceFromBottom, newSession, openPage, runPrompt, settled, showPanel, typeAndSend, useChatService, VIEWPORTS } from "../support/browser.js";
import { rgbPng } from "../support/png.js";
import { writeLongSession } from "../support/session-file.js";
import { tempDir } from "../support/skiff-process.js";

const LONG_SESSION_MESSAGES = 400;
const chat = useChatService(() => {
	const agentDir = tempDir();
	const cwd = tempDir();
	writeLongSession(agentDir, cwd, "long-session", LONG_SESSION_MESSAGES);
	return { agentDir, cwd };
});

/** A long markdown reply: headings, paragraphs, lists, a table and code blocks. */
function longMarkdown(): string {
	const sections = Array.from({ length: 6 }, (_, i) =>
		[
			`## Part ${i + 1}`,
			`Some **bold** words and \`inline code\` in paragraph ${i + 1}, long enough to wrap on a phone screen at least once or twice.`,
			"- first point\n- second point\n- third point",
			"| a | b |\n|---|---|\n| 1 | 2 |",
			"```ts\n" + Array.from({ length: 6 }, (_, n) => `const value${n} = ${n};`).join("\n") + "\n```",
		].join("\n\n"),
	);
	return sections.join("\n\n");
}

/** A PNG of the given size (one grey colour), as a data: URI: an image whose height is known only once it loads. */
function pngDataUri(width: number, height: number): string {
	return `data:image/png;base64,${rgbPng(width, height, () => GREY).toString("base64")}`;
}

const GREY = [0x99, 0x99, 0x99];

for (const viewport of VIEWPORTS) {
	describe(`scrolling at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let page: Page;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport);
			await newSession(page, viewport);
		});
		after(() => page?.context().close());

		test("the view follows a long markdown reply to its end, and the next one too", async () => {
			for (const round of [1, 2]) {
				await runPrompt(page, `REPLY_JSON ${JSON.stringify(longMarkdown())}`);
				await settled(page);
				assert.equal(await distanceFromBottom(page), 0, `at the newest message after reply ${round}`);
			}
		});

		test("an image that loads after its reply has rendered keeps the view at the bottom", async () => {
			await runPrompt(page, `REPLY_JSON ${JSON.stringify(`A chart:\n\n![tall chart](${pngDataUri(40, 700)})\n\nThat was it.`)}`);
			await page.waitForFunction(() => [...document.querySelectorAll(".msg.assistant img")].every((img) => (img as HTMLImageElement).complete));
			await settled(page);
			assert.equal(await distanceFromBottom(page), 0);
		});

		test("the reader's own scroll stops following; Jump to latest shows the new messages and follows again", async () => {
			const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");
			await typeAndSend(page, `REPLY ${words}\nSLOW 60`);
			await page.waitForSelector(".msg.assistant.streaming");
			assert.equal(await page.locator(".jump-latest").count(), 0, "no jump button while following");
			const box = (await page.locator(".transcript").boundingBox())!;
			await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
			await page.mouse.wheel(0, -600);
			await page.waitForSelector(".jump-latest");
			await page.waitForSelector(".app[data-run='idle']");
			await settled(page);
			assert.ok((await distanceFromBottom(page)) > 100, "the view stayed where the reader scrolled to");
			assert.match((await page.textContent(".jump-latest"))!, /1 new message/);
			await page.click(".jump-latest");
			await settled(page);
			assert.equal(await distanceFromBottom(page), 0);
			assert.equal(await page.locator(".jump-latest").count(), 0);

			// Following again: the next reply is followed.
			await runPrompt(page, `REPLY ${words}`);
			await settled(page);
			assert.equal(await distanceFromBottom(page), 0);
		});

		test("switching to a long session opens it at its newest message", async () => {
			await showPanel(page, viewport, "sessions");
			await page.click(".session-list li:has-text('Question number 0') .session-open");
			await page.waitForSelector(`.msg.assistant:has-text("Answer ${LONG_SESSION_MESSAGES - 1}:")`);
			await settled(page);
			assert.equal(await distanceFromBottom(page), 0);
		});
	});
}
