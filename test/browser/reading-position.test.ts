/**
 * Following and reading (issue 22, item 3): sending while scrolled up is a wish to follow, so the page jumps to
 * the message sent and follows the reply; scrolled up reading a long session, a reply arriving below (here from
 * another client) never moves the text in view, nor does a message above changing size, even in the frame of a
 * script's scroll.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { distanceFromBottom, openPage, settled, showPanel, typeAndSend, useChatService, VIEWPORTS } from "../support/browser.js";
import { writeLongSession } from "../support/session-file.js";
import { tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

const chat = useChatService(() => {
	const agentDir = tempDir();
	const cwd = tempDir();
	writeLongSession(agentDir, cwd, "long-reading", 300);
	return { agentDir, cwd };
});

/** Scrolls the transcript up by the wheel (the reader's own scroll), until the Jump button shows. */
async function scrollUp(page: Page): Promise<void> {
	const box = (await page.locator(".transcript").boundingBox())!;
	await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
	await page.mouse.wheel(0, -1500);
	await page.waitForSelector(".jump-latest");
	await settled(page);
}

/** Marks the message at the middle of the view and returns its top on the screen. */
function markMessageInView(page: Page): Promise<number> {
	return page.evaluate(() => {
		for (const marked of document.querySelectorAll("[data-reading]")) marked.removeAttribute("data-reading");
		const view = document.querySelector(".transcript")!.getBoundingClientRect();
		const middle = view.top + view.height / 2;
		const message = [...document.querySelectorAll(".msg")].find((m) => {
			const r = m.getBoundingClientRect();
			return r.top <= middle && r.bottom >= middle;
		})!;
		message.setAttribute("data-reading", "");
		return message.getBoundingClientRect().top;
	});
}

function markedTop(page: Page): Promise<number> {
	return page.evaluate(() => document.querySelector("[data-reading]")?.getBoundingClientRect().top ?? Number.NaN);
}

for (const viewport of VIEWPORTS) {
	describe(`reading position at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let page: Page;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport);
			await showPanel(page, viewport, "sessions");
			await page.click(".session-list li:has-text('Question number 0') .session-open");
			await page.waitForSelector('.msg.assistant:has-text("Answer 299:")');
			await settled(page);
		});
		after(() => page?.context().close());

		test("scrolled up, a reply from another client moves the text in view by 0 px", async () => {
			await scrollUp(page);
			const top = await markMessageInView(page);
			const sessionId = await page.evaluate(() => sessionStorage.getItem("skiff.session"));
			const other = await TestClient.connect(chat.service.skiff.wsUrl);
			try {
				const marker = `other-client-${viewport.name}`;
				await other.ok({ type: "prompt", message: `REPLY ${marker} ${"and more words ".repeat(40)}`, sessionId });
				await page.waitForSelector(`.msg.assistant:not(.streaming):has-text("${marker}")`);
				await page.waitForSelector(".app[data-run='idle']");
				await settled(page);
			} finally {
				other.close();
			}
			assert.equal(await markedTop(page), top, "the message being read did not move");
			assert.ok((await distanceFromBottom(page)) > 100, "still scrolled up");
			assert.match((await page.textContent(".jump-latest"))!, /2 new messages/);
		});

		test("sending while scrolled up jumps to the message sent and follows its reply", async () => {
			await page.click(".jump-latest");
			await settled(page);
			await scrollUp(page);
			const marker = `sent-while-up-${viewport.name}`;
			await typeAndSend(page, `REPLY ${marker} ${"word ".repeat(60)}\nSLOW 20`);
			await page.waitForSelector(`.msg.user:has-text("${marker}")`);
			await page.waitForSelector(".msg.assistant.streaming");
			await settled(page);
			assert.equal(await page.locator(".jump-latest").count(), 0, "following again");
			assert.ok((await distanceFromBottom(page)) <= 1, "at the newest message while the reply streams");
			await page.waitForSelector(".app[data-run='idle']");
			await settled(page);
			assert.equal(await distanceFromBottom(page), 0, "and at the end of the reply");
		});

		test("scrolled up, a script's scroll in the frame where a message above changes size is kept", async () => {
			await scrollUp(page);
			const top = await markMessageInView(page);
			// In one animation frame, as a script scrolling smoothly does: scroll up by 200 px, and a message far above
			// the view grows by 100 px (as a message does when first laid out). The growth is made up for; the scroll
			// stays, though its scroll event only comes in the next frame.
			await page.evaluate(
				() =>
					new Promise<void>((resolve) =>
						requestAnimationFrame(() => {
							document.querySelector(".transcript")!.scrollTop -= 200;
							(document.querySelector(".transcript-content .msg") as HTMLElement).style.paddingTop = "100px";
							requestAnimationFrame(() => resolve());
						}),
					),
			);
			await settled(page);
			assert.equal(await markedTop(page), top + 200, "the text in view moved down by the scroll, not by the growth above it");
		});

		test("scrolled up, the message just above the view growing does not move the text in view", async () => {
			// The message at the top of the view, with the one before it in the same group of messages (the page keeps
			// the message in view, not its group, where it is).
			for (let tries = 0; tries < 3; tries++) {
				const first = await page.evaluate(() => {
					const scroller = document.querySelector(".transcript")!;
					const viewTop = scroller.getBoundingClientRect().top;
					const top = [...document.querySelectorAll(".transcript-content .msg")].find((m) => m.getBoundingClientRect().bottom > viewTop + 1)!;
					if (!top.previousElementSibling) scroller.scrollTop += top.getBoundingClientRect().bottom - viewTop;
					return !top.previousElementSibling;
				});
				await settled(page);
				if (!first) break;
			}
			const top = await page.evaluate(() => {
				for (const marked of document.querySelectorAll("[data-reading]")) marked.removeAttribute("data-reading");
				const viewTop = document.querySelector(".transcript")!.getBoundingClientRect().top;
				const message = [...document.querySelectorAll(".transcript-content .msg")].find((m) => m.getBoundingClientRect().bottom > viewTop + 1)!;
				message.setAttribute("data-reading", "");
				const before = message.getBoundingClientRect().top;
				(message.previousElementSibling as HTMLElement).style.paddingTop = "100px";
				return before;
			});
			await settled(page);
			assert.equal(await markedTop(page), top, "the message in view did not move");
		});
	});
}
