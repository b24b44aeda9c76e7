/**
 * Sessions as people use them: one title everywhere, the current row marked, forks marked and sorted by their
 * own time, same-titled sessions told apart; the phone drawer (backdrop, Esc, outside tap, closing after a
 * choice, focus kept inside and given back); Fork visible without hover; rename with focus, Esc, Cancel and an
 * inline error; and drafts that stay with their session.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { newSession, openPage, runPrompt, settled, showPanel, useChatService, type Viewport, VIEWPORTS } from "../support/browser.js";

const chat = useChatService();

const focused = (page: Page) => page.evaluate(() => document.activeElement?.id || document.activeElement?.className || document.activeElement?.tagName);

/** Opens a session from the list by the text of its row. */
async function openRow(page: Page, viewport: Viewport, text: string): Promise<void> {
	await showPanel(page, viewport, "sessions");
	await page.locator(".session-list li", { hasText: text }).first().locator(".session-open").click();
	await page.waitForSelector(`.top .title:has-text(${JSON.stringify(text)})`);
}

for (const viewport of VIEWPORTS) {
	describe(`sessions at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let page: Page;
		const tag = viewport.name;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport);
		});
		after(() => page?.context().close());

		test("the header and the list title a session alike; the current row is marked, not disabled", async () => {
			await newSession(page, viewport);
			await runPrompt(page, `Title rule question ${tag}\nREPLY fine`);
			await page.waitForSelector(`.top .title:has-text('Title rule question ${tag}')`);
			await showPanel(page, viewport, "sessions");
			const current = page.locator(".session-list li.current");
			await page.waitForSelector(`.session-list li.current:has-text('Title rule question ${tag}')`);
			assert.equal(await current.locator(".session-open").getAttribute("aria-current"), "true");
			assert.equal(await current.locator(".session-open").isDisabled(), false);
			assert.equal(await page.locator(".session-open[aria-current]").count(), 1, "one current row");
		});

		test("same-titled sessions show the end of their id; a fork is marked and listed by its own time", async () => {
			await newSession(page, viewport);
			await runPrompt(page, `Same title ${tag}\nREPLY first`);
			await newSession(page, viewport);
			await runPrompt(page, `Same title ${tag}\nREPLY second`);
			await showPanel(page, viewport, "sessions");
			const twins = page.locator(".session-list li", { hasText: `Same title ${tag}` });
			await page.waitForFunction((t) => [...document.querySelectorAll(".session-list li")].filter((li) => li.textContent?.includes(t)).length === 2, `Same title ${tag}`);
			const ids = await twins.locator(".session-id").allTextContents();
			assert.equal(ids.length, 2);
			assert.notEqual(ids[0], ids[1]);

			// Fork the older session of the two from its first message: the fork is the newest row, tagged.
			if (viewport.phone) await page.click("button.panel-close");
			await openRow(page, viewport, "Title rule question");
			const fork = page.locator(".msg.user .fork").first();
			assert.ok(Number(await fork.evaluate((el) => getComputedStyle(el).opacity)) > 0.9, "Fork shows without hover");
			if (viewport.phone) await fork.tap();
			else await fork.click();
			await page.waitForFunction(() => document.querySelectorAll(".msg.user").length === 0);
			assert.match(await page.inputValue("#composer"), /Title rule question/, "the fork's draft is the message forked at");
			await showPanel(page, viewport, "sessions");
			await page.waitForSelector(".session-list li .fork-tag");
			const first = page.locator(".session-list li").first();
			assert.equal(await first.locator(".fork-tag").count(), 1, "the fork is listed first: it was made last");
			assert.equal(await first.getAttribute("class"), "current");
			if (viewport.phone) await page.click("button.panel-close");
		});

		test("a fork's draft stays with the fork; each session keeps its own draft", async () => {
			// Now in the fork (previous test), whose draft is the forked message.
			const forkDraft = await page.inputValue("#composer");
			assert.match(forkDraft, /Title rule question/);
			await openRow(page, viewport, "Same title");
			assert.equal(await page.inputValue("#composer"), "", "the fork's draft did not follow");
			await page.fill("#composer", `draft for twin ${tag}`);
			await showPanel(page, viewport, "sessions");
			await page.locator(".session-list li").first().locator(".session-open").click(); // back to the fork
			await page.waitForFunction((d) => (document.querySelector("#composer") as HTMLTextAreaElement).value === d, forkDraft);
			await openRow(page, viewport, "Same title");
			assert.equal(await page.inputValue("#composer"), `draft for twin ${tag}`);
			await page.fill("#composer", "");
		});

		test("rename: the field is focused, Esc and Cancel give up, an empty name is refused inline", async () => {
			await showPanel(page, viewport, "sessions");
			const before = await page.textContent(".top .title");
			await page.click("button:has-text('Rename')");
			await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Session name"); // focus in the name field
			await page.keyboard.type("abandoned");
			await page.keyboard.press("Escape");
			await page.waitForSelector("form.rename", { state: "detached" });
			if (viewport.phone) assert.equal(await page.locator(".app.panel-open").count(), 1, "Esc gave up the rename only");

			await page.click("button:has-text('Rename')");
			await page.click("form.rename button:has-text('Cancel')");
			await page.waitForSelector("form.rename", { state: "detached" });
			assert.equal(await page.textContent(".top .title"), before, "nothing renamed");

			await page.click("button:has-text('Rename')");
			await page.fill("input[aria-label='Session name']", "   ");
			await page.press("input[aria-label='Session name']", "Enter");
			await page.waitForSelector("#rename-error");
			assert.equal(await page.getAttribute("input[aria-label='Session name']", "aria-invalid"), "true");
			await page.fill("input[aria-label='Session name']", `Renamed ${tag}`);
			await page.press("input[aria-label='Session name']", "Enter");
			await page.waitForSelector(`.top .title:has-text('Renamed ${tag}')`);
			await page.waitForSelector("form.rename", { state: "detached" });
			await page.waitForSelector(`.session-list li.current:has-text('Renamed ${tag}')`);
		});

		if (viewport.phone) {
			test("the drawer: backdrop, Esc and outside tap close it; it traps and returns focus; choosing a session closes it; closed, it is hidden", async () => {
				if (await page.locator(".app.panel-open").count()) await page.click("button.panel-close");
				await settled(page);
				const drawer = page.locator("aside.panels");
				assert.equal(await drawer.evaluate((el) => [getComputedStyle(el).visibility, getComputedStyle(el).boxShadow].join()), "hidden,none", "closed: no shadow strip");
				assert.equal(await drawer.evaluate((el) => (el as HTMLElement).inert), true, "closed: nothing in it can take focus");

				await page.click("button.panel-toggle");
				await page.waitForSelector(".drawer-backdrop");
				assert.equal(await drawer.evaluate((el) => el.contains(document.activeElement)), true, "focus moved into the drawer");
				for (let i = 0; i < 12; i++) {
					await page.keyboard.press("Tab");
					assert.equal(await drawer.evaluate((el) => el.contains(document.activeElement)), true, "Tab stays inside the open drawer");
				}
				await page.keyboard.press("Escape");
				await page.waitForSelector(".app:not(.panel-open)");
				assert.equal(await page.evaluate(() => document.activeElement?.classList.contains("panel-toggle")), true, "focus back on the Panels button");

				await page.click("button.panel-toggle");
				await page.waitForSelector(".drawer-backdrop");
				await page.mouse.click(20, 400); // outside the drawer, on the backdrop
				await page.waitForSelector(".app:not(.panel-open)");

				await page.click("button.panel-toggle");
				await page.locator(".session-list li:not(.current) .session-open").first().tap();
				await page.waitForSelector(".app:not(.panel-open)");
				await page.waitForSelector(".drawer-backdrop", { state: "detached" });
				assert.equal(await focused(page), "composer", "the message box has the focus after choosing");
			});
		} else {
			test("choosing a session in the side panel gives the focus back to the message box", async () => {
				await page.locator(".session-list li:not(.current) .session-open").first().click();
				await page.waitForFunction(() => document.activeElement?.id === "composer");
			});
		}
	});
}
