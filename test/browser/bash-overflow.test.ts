/**
 * Bash output that is wider than the screen (one long unbroken line, a wide table, ANSI-coloured output, a long
 * path) stays inside its card at both sizes: the card never pushes the conversation sideways, and its output
 * scrolls inside the card (issue 22, item 15: on a phone such output once ran off the right edge). Terminal
 * escapes (colours) are dropped rather than shown as `[31m` beside a box.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import { newSession, openPage, runPrompt, useChatService, VIEWPORTS } from "../support/browser.js";

const chat = useChatService();

/** Commands whose output is wider than a phone, each of a different kind. */
const WIDE_OUTPUTS = [
	// one unbroken line of 600 characters
	"head -c 600 /dev/zero | tr '\\0' x; echo",
	// a table of 12 columns
	"for r in 1 2 3; do printf '%-14s' name size owner group mode created modified accessed inode links device flags; echo; done",
	// ANSI colours around long words
	"for i in 1 2; do printf '\\033[31mERROR\\033[0m \\033[1m%s\\033[0m\\n' $(head -c 200 /dev/zero | tr '\\0' e); done",
	// a long path
	"echo /home/someone/projects/a-rather-long-project-name/packages/some-package-with-a-long-name/src/components/DeeplyNestedComponentWithAVeryLongName.test.tsx",
];

/** How far anything of the conversation sticks out to the right of the window, and each bash card's output. */
function overflow(page: Page) {
	return page.evaluate(() => {
		const transcript = document.querySelector(".transcript")!;
		const right = transcript.getBoundingClientRect().right;
		return {
			documentScroll: document.documentElement.scrollWidth - window.innerWidth,
			transcriptScroll: transcript.scrollWidth - transcript.clientWidth,
			cards: [...document.querySelectorAll(".transcript .tool.bash")].map((card) => {
				const pre = card.querySelector(".output pre") as HTMLElement;
				return {
					cardRight: card.getBoundingClientRect().right - right,
					preRight: pre.getBoundingClientRect().right - right,
					scrollsInside: pre.scrollWidth > pre.clientWidth ? getComputedStyle(pre).overflowX : "fits",
				};
			}),
		};
	});
}

for (const viewport of VIEWPORTS) {
	describe(`wide bash output at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		test("long lines, wide tables, ANSI output and long paths stay inside their card, which scrolls them", async () => {
			const page = await openPage(chat.browser, chat.service.skiff.url, viewport);
			try {
				await newSession(page, viewport);
				await runPrompt(page, WIDE_OUTPUTS.map((command) => `RUN ${command}`).join("\n"));
				await page.locator(".transcript .tool.bash[data-state='done']").nth(WIDE_OUTPUTS.length - 1).waitFor();
				const found = await overflow(page);
				assert.equal(found.cards.length, WIDE_OUTPUTS.length);
				assert.ok(found.documentScroll <= 0, `the page scrolls sideways by ${found.documentScroll} px`);
				assert.ok(found.transcriptScroll <= 0, `the conversation scrolls sideways by ${found.transcriptScroll} px`);
				found.cards.forEach((card, n) => {
					assert.ok(card.cardRight <= 0, `card ${n} sticks out ${card.cardRight} px`);
					assert.ok(card.preRight <= 0, `the output of card ${n} sticks out ${card.preRight} px`);
					assert.ok(card.scrollsInside === "auto" || card.scrollsInside === "scroll" || card.scrollsInside === "fits", `card ${n}: ${card.scrollsInside}`);
				});
				assert.notEqual(found.cards[0]!.scrollsInside, "fits", "the 600-character line scrolls inside its card");
				const coloured = (await page.locator(".transcript .tool.bash .output pre").nth(2).textContent())!;
				assert.match(coloured, /^ERROR e{200}\nERROR e{200}$/, "the colours' escapes are not shown");
			} finally {
				await page.context().close();
			}
		});
	});
}
