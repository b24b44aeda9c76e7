/**
 * The session tree panel in Chromium against a real skiff and the fake model, at desktop and phone sizes: the
 * tree (tool results folded under their turn, the active path and the current entry marked), keyboard use
 * (arrows, Home/End, Left/Right folding, Enter, F2 labels), filters and search; continuing from an earlier
 * message, which reloads the transcript of every client following the session and makes the next prompt a
 * sibling branch; summarizing the branch left; forking from a message; and the controls refused during a run.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { newSession, openPage, runPrompt, settled, showPanel, typeAndSend, useChatService, VIEWPORTS } from "../support/browser.js";

const chat = useChatService();

/** The text of the row the tree points at (aria-activedescendant). */
const activeRow = (page: Page) =>
	page.evaluate(() => {
		const id = document.querySelector(".tree-view")?.getAttribute("aria-activedescendant");
		return id ? (document.getElementById(id)?.textContent ?? "") : "";
	});

/** Presses `key` in the tree until the chosen row's text includes `text` (at most `limit` presses). */
async function moveTo(page: Page, key: string, text: string, limit = 20): Promise<void> {
	for (let i = 0; i < limit && !(await activeRow(page)).includes(text); i++) await page.keyboard.press(key);
	assert.match(await activeRow(page), new RegExp(text));
}

/** The row of one of your messages, and of an agent's reply ("ok: <message>"), by their text. */
const you = (page: Page, text: string) => page.locator(".tree-row.kind-user", { hasText: text });
const agent = (page: Page, text: string) => page.locator(".tree-row.kind-assistant", { hasText: text });

/** The session the page shows (its id, as remembered in sessionStorage). */
const currentSession = (page: Page) => page.evaluate(() => sessionStorage.getItem("skiff.session")!);

/** A new session, waited for by its id: the session shown before may be empty too. */
async function freshSession(page: Page, viewport: (typeof VIEWPORTS)[number]): Promise<void> {
	const before = await currentSession(page);
	await newSession(page, viewport);
	await page.waitForFunction((id) => sessionStorage.getItem("skiff.session") !== id, before);
}

for (const viewport of VIEWPORTS) {
	describe(`the session tree at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let page: Page;
		const tag = viewport.name;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport);
		});
		after(() => page?.context().close());

		test("a tree with the active path marked; arrows, Home/End and Left/Right fold tool results; filters and search", async () => {
			await freshSession(page, viewport);
			await runPrompt(page, `alpha ${tag}`);
			await runPrompt(page, `beta ${tag}\nRUN echo tree-${tag}`);
			await runPrompt(page, `gamma ${tag}`);
			await showPanel(page, viewport, "tree");
			await page.waitForSelector(".tree-row.current");
			assert.match((await page.textContent(".tree-row.current"))!, new RegExp(`ok: gamma ${tag}`));
			assert.equal(await page.getAttribute(".tree-row.current", "aria-current"), "location");
			assert.equal(await page.locator(".tree-row.kind-toolResult").count(), 0, "tool results are folded under their turn");
			const turn = page.locator(".tree-row.kind-assistant", { hasText: "→ bash" });
			assert.equal(await turn.getAttribute("aria-expanded"), "false");
			assert.match((await turn.textContent())!, /1 tool/);
			assert.equal(await page.locator(".tree-row.kind-user.on-path").count(), 3, "every message is on the active path");

			// The tree takes the focus and starts at the current entry; arrows choose, Home and End jump.
			await page.focus(".tree-view");
			assert.match(await activeRow(page), new RegExp(`ok: gamma ${tag}`));
			await page.keyboard.press("Home");
			assert.equal(await page.getAttribute(".tree-view", "aria-activedescendant"), await page.locator(".tree-row").first().getAttribute("id"));
			await page.keyboard.press("End");
			assert.match(await activeRow(page), /ok: gamma/);
			await moveTo(page, "ArrowUp", "→ bash");

			// Right unfolds the tool result, Right again enters it, Left returns to the turn, Left folds it.
			await page.keyboard.press("ArrowRight");
			await page.waitForSelector(".tree-row.kind-toolResult");
			assert.equal(await turn.getAttribute("aria-expanded"), "true");
			assert.equal(await page.getAttribute(".tree-row.kind-toolResult", "aria-level"), "2");
			await page.keyboard.press("ArrowRight");
			assert.match(await activeRow(page), new RegExp(`tree-${tag}`), "the tool's output");
			await page.keyboard.press("ArrowLeft");
			assert.match(await activeRow(page), /→ bash/);
			await page.keyboard.press("ArrowLeft");
			await page.waitForSelector(".tree-row.kind-toolResult", { state: "detached" });

			// Filters.
			await page.click(".tree-filters button:has-text('User')");
			await page.waitForFunction(() => [...document.querySelectorAll(".tree-row")].every((r) => r.classList.contains("kind-user")));
			assert.equal(await page.locator(".tree-row").count(), 3);
			await page.click(".tree-filters button:has-text('No tools')");
			await page.waitForSelector(".tree-row.kind-assistant");
			assert.equal(await page.locator(".tree-row .chip").count(), 0, "no tool results to fold");
			await page.click(".tree-filters button:has-text('Labelled')");
			await page.waitForSelector(".panel.tree .empty-state:has-text('No labelled entries')");
			await page.click(".tree-filters button:has-text('All')");

			// Search: matching rows only, the words marked; Enter goes to the tree.
			await page.fill(".tree-search", `beta ${tag}`);
			await page.waitForFunction(() => document.querySelectorAll(".tree-row").length === 1);
			assert.equal(await page.textContent(".tree-row mark"), "beta");
			assert.match((await page.textContent(".tree-count"))!, /^1 of \d+ entries$/);
			await page.press(".tree-search", "Enter");
			assert.equal(await page.evaluate(() => document.activeElement?.className), "tree-view");
			await page.fill(".tree-search", "");

			// F2 labels the chosen entry; Enter saves; the Labelled filter finds it.
			await you(page, `alpha ${tag}`).click();
			await page.keyboard.press("F2");
			await page.waitForSelector(".tree-row input.label-input");
			await page.keyboard.type("start here");
			await page.keyboard.press("Enter");
			await page.waitForSelector(`.tree-row:has-text('alpha ${tag}') .tree-label:has-text('start here')`);
			await page.click(".tree-filters button:has-text('Labelled')");
			await page.waitForFunction(() => document.querySelectorAll(".tree-row").length === 1);
			assert.match((await page.textContent(".tree-row"))!, new RegExp(`alpha ${tag}`));
			await page.click(".tree-filters button:has-text('All')");
		});

		test("continue from an earlier message: every client shows the new branch; the next prompt is a sibling branch", async () => {
			const sessionId = await currentSession(page);
			const other = await openPage(chat.browser, chat.service.skiff.url, viewport, {
				before: async (p) => {
					await p.addInitScript((id) => sessionStorage.setItem("skiff.session", id), sessionId);
				},
			});
			try {
				await other.waitForSelector(`.msg.assistant:has-text('ok: gamma ${tag}')`);
				await showPanel(page, viewport, "tree");
				await you(page, `beta ${tag}`).click();
				await page.click(".tree-actions button:has-text('Continue from here')");
				// The message continued before is back in the message box, to edit; the transcript ends before it.
				await page.waitForFunction((t) => (document.querySelector("#composer") as HTMLTextAreaElement).value.includes(t), `beta ${tag}`);
				await page.waitForFunction(() => !document.querySelector(".transcript")?.textContent?.includes("gamma"));
				assert.match((await page.textContent(".transcript"))!, new RegExp(`ok: alpha ${tag}`));
				await other.waitForFunction(() => !document.querySelector(".transcript")?.textContent?.includes("gamma"));
				assert.match((await other.textContent(".transcript"))!, new RegExp(`ok: alpha ${tag}`));

				await page.fill("#composer", "");
				await runPrompt(page, `delta ${tag}`);
				await other.waitForSelector(`.msg.assistant:has-text('ok: delta ${tag}')`);
				await showPanel(page, viewport, "tree");
				// The branch left hangs under the branch point, one level deeper; the new one continues the line.
				const branchPoint = agent(page, `ok: alpha ${tag}`);
				await page.waitForSelector(`.tree-row[aria-level="2"]:has-text('beta ${tag}')`);
				assert.equal(await branchPoint.getAttribute("aria-expanded"), "true");
				assert.equal(await you(page, `delta ${tag}`).getAttribute("aria-level"), "1");
				assert.match((await page.textContent(".tree-row.current"))!, new RegExp(`ok: delta ${tag}`));
				assert.doesNotMatch((await you(page, `beta ${tag}`).getAttribute("class"))!, /on-path/);
				await branchPoint.click();
				await page.keyboard.press("ArrowLeft");
				await page.waitForSelector(`.tree-row:has-text('beta ${tag}')`, { state: "detached" });
				assert.match((await branchPoint.textContent())!, /\+1/);
				await page.keyboard.press("ArrowRight");
				await page.waitForSelector(`.tree-row:has-text('beta ${tag}')`);
			} finally {
				await other.context().close();
			}
		});

		test("Enter continues with a summary of the branch left; Fork from here starts a new session at a message", async () => {
			await showPanel(page, viewport, "tree");
			await page.check(".tree-actions input[type='checkbox']");
			await agent(page, `ok: gamma ${tag}`).click();
			await page.keyboard.press("Enter");
			// The summary is recorded under the entry continued from, and the conversation continues from it.
			if (viewport.phone) await page.waitForSelector(".app:not(.panel-open)");
			await showPanel(page, viewport, "tree");
			await page.waitForSelector(".tree-row.current.kind-branch_summary");
			await page.waitForSelector(`.msg:has-text('ok: gamma ${tag}')`);
			assert.equal(await page.isChecked(".tree-actions input[type='checkbox']"), false, "the choice is not kept for the next move");

			const before = await currentSession(page);
			await you(page, `alpha ${tag}`).click();
			await page.click(".tree-actions button:has-text('Fork from here')");
			await page.waitForFunction((id) => sessionStorage.getItem("skiff.session") !== id, before);
			// The new session is adopted before the page renders its message box: wait for the draft to show.
			await page.waitForFunction((text) => (document.querySelector("#composer") as HTMLTextAreaElement | null)?.value.includes(text), `alpha ${tag}`);
			assert.match(await page.inputValue("#composer"), new RegExp(`alpha ${tag}`), "the fork's draft is the message forked at");
			assert.equal(await page.locator(".msg.user").count(), 0);
		});

		test("during a run the tree's actions wait, and say so", async () => {
			await freshSession(page, viewport);
			await runPrompt(page, `epsilon ${tag}`);
			await typeAndSend(page, `zeta ${tag}\nRUN sleep 30`);
			await page.waitForSelector(".app[data-run='running']");
			await showPanel(page, viewport, "tree");
			await you(page, `epsilon ${tag}`).click();
			await page.waitForSelector(".tree-status:has-text('The agent is working')");
			for (const name of ["Continue from here", "Fork from here", "Label"]) assert.equal(await page.isDisabled(`.tree-actions button:has-text('${name}')`), true, name);
			await page.keyboard.press("Enter"); // refused here too: nothing moves
			await settled(page);
			assert.match((await page.textContent(".tree-row.current"))!, new RegExp(`zeta ${tag}|bash`));
			if (viewport.phone) await page.click("button.panel-close");
			await page.click("button.abort");
			await page.waitForSelector(".app[data-run='idle']");
			await showPanel(page, viewport, "tree");
			await page.waitForFunction(() => !(document.querySelector(".tree-actions button.primary") as HTMLButtonElement).disabled);
		});
	});
}
