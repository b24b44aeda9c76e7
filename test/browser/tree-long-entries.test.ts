/**
 * The tree panel with long entries and long sessions (issue 22, item 9): a reply that is one enormous word shows
 * its start (not "(empty)"), a row's whole preview and label are in reach, and the current entry stays in view
 * after a message is sent on a new branch.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { newSession, openPage, runPrompt, settled, showPanel, useChatService, VIEWPORTS } from "../support/browser.js";
import { writeLongSession } from "../support/session-file.js";
import { tempDir } from "../support/skiff-process.js";

const chat = useChatService(() => {
	const agentDir = tempDir();
	const cwd = tempDir();
	writeLongSession(agentDir, cwd, "long-tree", 80);
	return { agentDir, cwd };
});

/** Whether the current entry's row is rendered and wholly inside the tree's view. */
function currentRowInView(page: Page): Promise<boolean> {
	return page.evaluate(() => {
		const view = document.querySelector(".tree-view")?.getBoundingClientRect();
		const row = document.querySelector(".tree-row.current")?.getBoundingClientRect();
		return Boolean(view && row && row.top >= view.top - 1 && row.bottom <= view.bottom + 1);
	});
}

for (const viewport of VIEWPORTS) {
	describe(`tree with long entries at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let page: Page;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport);
		});
		after(() => page?.context().close());

		test("a 15,000-character reply without spaces shows its start; its label and preview are whole in the tooltip and the chosen entry", async () => {
			await newSession(page, viewport);
			await runPrompt(page, `REPLY ${"Qx7".repeat(5000)}`);
			await showPanel(page, viewport, "tree");
			const row = page.locator(".tree-row.kind-assistant").last();
			await row.waitFor();
			assert.doesNotMatch((await row.textContent())!, /\(empty\)/);
			assert.match((await row.textContent())!, /Qx7Qx7Qx7/);

			const label = `a label far too long for one row ${viewport.name}`;
			await row.click();
			await page.keyboard.press("F2");
			await page.waitForSelector(".tree-row input.label-input");
			await page.keyboard.type(label);
			await page.keyboard.press("Enter");
			await page.waitForSelector(".tree-row.kind-assistant .tree-label");
			const title = (await page.locator(".tree-row.kind-assistant").last().getAttribute("title"))!;
			assert.ok(title.includes(label), `the tooltip holds the whole label: ${title}`);
			assert.ok(title.includes("Qx7Qx7"), "and the preview");
			assert.equal(await page.locator(".tree-chosen").getByText(label).count(), 1, "the chosen entry shows the label whole");
		});

		test("after sending on a new branch, the current entry is in view", async () => {
			await showPanel(page, viewport, "sessions");
			await page.click(".session-list li:has-text('Question number 0') .session-open");
			// Its newest reply: the 80th message, or the branch the other size's run of this test left.
			await page.waitForSelector('.msg.assistant:has-text("Answer 79:"), .msg.assistant:has-text("new branch")');
			await showPanel(page, viewport, "tree");
			await page.waitForSelector(".tree-row.current");
			await page.focus(".tree-view");
			await page.keyboard.press("Home");
			await page.locator(".tree-row.kind-user", { hasText: "Question number 1:" }).click();
			await page.click(".tree-actions button:has-text('Continue from here')");
			await page.waitForFunction(() => (document.querySelector("#composer") as HTMLTextAreaElement).value.includes("Question number 1"));
			await page.fill("#composer", "");
			await runPrompt(page, `REPLY new branch ${viewport.name}`);
			await showPanel(page, viewport, "tree");
			await page.waitForSelector(`.tree-row.kind-user:has-text('new branch ${viewport.name}'), .tree-view`);
			await settled(page);
			await page.waitForFunction(() => document.querySelector(".tree-row.current")?.textContent?.includes("ok") || document.querySelector(".tree-row.current")?.textContent?.includes("new branch"), undefined, { timeout: 5000 }).catch(() => undefined);
			assert.ok(await currentRowInView(page), "the current entry's row is in view");
			assert.match((await page.textContent(".tree-row.current"))!, new RegExp(`new branch ${viewport.name}`));
		});
	});
}
