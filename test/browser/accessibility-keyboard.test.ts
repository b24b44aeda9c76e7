/**
 * Accessibility and the keyboard: real headings, a transcript that is not a live region (a separate polite
 * region reads out finished replies), tabs with their tab panels, a skip link as the first Tab stop, hidden
 * controls out of the tab order, the composer focused on load and after sending; `?` lists the shortcuts,
 * Ctrl/Cmd+K switches session by typing, Esc closes dialogs and focus returns to the composer.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { newSession, openPage, runPrompt, settled, showPanel, useChatService, VIEWPORTS } from "../support/browser.js";

const chat = useChatService();

const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? "");
const composerFocused = (page: Page) => page.waitForFunction(() => document.activeElement?.id === "composer");

for (const viewport of VIEWPORTS) {
	describe(`accessibility and keyboard at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let page: Page;
		const tag = viewport.name;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport);
		});
		after(() => page?.context().close());

		test("the composer has the focus on load, and again after sending", async () => {
			await composerFocused(page);
			await newSession(page, viewport);
			await composerFocused(page);
			await runPrompt(page, `REPLY answer for ${tag}`);
			assert.equal(await focusedId(page), "composer");
		});

		test("headings, tabs with tab panels, and no live transcript: a separate polite region reads the finished reply", async () => {
			assert.deepEqual(await page.locator("h1").allTextContents(), ["Skiff"]);
			await showPanel(page, viewport, "sessions");
			assert.equal(await page.locator("aside.panels [role='tabpanel']:not([hidden]) h2").textContent(), "Sessions");
			for (const tab of await page.locator("[role='tab']").all()) {
				const panelId = (await tab.getAttribute("aria-controls"))!;
				assert.equal(await page.locator(`#${panelId}`).getAttribute("role"), "tabpanel");
				assert.equal(await page.locator(`#${panelId}`).getAttribute("aria-labelledby"), await tab.getAttribute("id"));
			}
			assert.equal(await page.locator("#tab-sessions").getAttribute("aria-selected"), "true");
			await page.focus("#tab-sessions");
			const second = page.locator("[role='tab']").nth(1); // the tab after Sessions, whichever panel it is
			const secondId = (await second.getAttribute("id"))!;
			await page.keyboard.press("ArrowRight");
			await page.waitForFunction((id) => document.activeElement?.id === id, secondId);
			const secondPanel = page.locator(`#${(await second.getAttribute("aria-controls"))!}`);
			assert.equal(await secondPanel.isVisible(), true);
			// Its heading names it as the tab does (the heading may say more: "Session tree" under "Tree").
			assert.match((await secondPanel.locator("h2").textContent())!, new RegExp(`\\b${await second.textContent()}$`, "i"));
			await page.click("#tab-sessions");
			if (viewport.phone) await page.click("button.panel-close");

			const liveAround = await page.evaluate(() => {
				const live: string[] = [];
				for (let el: Element | null = document.querySelector(".msg.assistant"); el; el = el.parentElement) {
					if (el.getAttribute("aria-live") || ["log", "status", "alert"].includes(el.getAttribute("role") ?? "")) live.push(el.className);
				}
				return live;
			});
			assert.deepEqual(liveAround, [], "no message is inside a live region");
			await runPrompt(page, `REPLY **spoken** reply for ${tag}`);
			const region = page.locator("[aria-live='polite'].live-region");
			await page.waitForFunction((t) => document.querySelector(".live-region")?.textContent?.includes(t), `spoken reply for ${tag}`);
			assert.equal(await region.textContent(), `Reply: spoken reply for ${tag}`, "the final text, without markdown");
		});

		test("the first Tab stop is the skip link to the composer; hidden controls take no focus", async () => {
			const first = await page.evaluate(() => {
				const tabbable = [...document.querySelectorAll<HTMLElement>("a[href], button, input, select, textarea, [tabindex]")].filter(
					(el) => el.tabIndex >= 0 && !(el as HTMLButtonElement).disabled && !el.closest("[inert]") && el.getClientRects().length > 0,
				);
				return tabbable[0]?.className;
			});
			assert.equal(first, "skip-link", "the skip link comes first in the tab order");
			await page.focus(".skip-link");
			assert.equal(await page.locator(".skip-link").evaluate((el) => el.getBoundingClientRect().top >= 0), true, "visible once focused");
			await page.keyboard.press("Enter");
			await composerFocused(page);
			// Through every Tab stop of the page: each is visible (a closed drawer's controls are not stops).
			const stops = new Set<string>();
			for (let i = 0; i < 40; i++) {
				await page.keyboard.press("Tab");
				const stop = await page.evaluate(() => {
					const el = document.activeElement as HTMLElement;
					const r = el.getBoundingClientRect();
					const hiddenAway = getComputedStyle(el).visibility === "hidden" || r.width === 0 || r.right <= 0 || r.left >= innerWidth || Number(getComputedStyle(el).opacity) === 0;
					return { key: `${el.tagName}.${el.className}#${el.id}:${el.textContent?.slice(0, 20)}`, hiddenAway, inDrawer: !!el.closest("aside.panels") };
				});
				assert.equal(stop.hiddenAway, false, `a hidden control took the focus: ${stop.key}`);
				if (viewport.phone) assert.equal(stop.inDrawer, false, `the closed drawer took the focus: ${stop.key}`);
				stops.add(stop.key);
			}
			assert.ok(stops.size > 3);
		});

		test("? lists the shortcuts in a dialog; Esc closes it and the composer has the focus again", async () => {
			await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
			await page.keyboard.press("?");
			const dialog = page.locator("dialog.shortcuts[open]");
			await dialog.waitFor();
			assert.match((await dialog.textContent())!, /Switch session/);
			assert.equal(await dialog.evaluate((el) => el.contains(document.activeElement)), true);
			await page.keyboard.press("Escape");
			await page.waitForSelector("dialog", { state: "detached" });
			await composerFocused(page);
			// Typed into the composer, ? is text.
			await page.keyboard.type("why?");
			assert.equal(await page.inputValue("#composer"), "why?");
			assert.equal(await page.locator("dialog").count(), 0);
			await page.fill("#composer", "");
		});

		test("Ctrl+K switches session by typing and Enter; the dialog closes and the composer has the focus", async () => {
			const target = `Switcher target ${tag}`;
			await newSession(page, viewport);
			await runPrompt(page, `${target}\nREPLY noted`);
			await newSession(page, viewport);
			await page.keyboard.press("Control+k");
			const dialog = page.locator("dialog.switcher[open]");
			await dialog.waitFor();
			await page.waitForFunction(() => document.activeElement?.getAttribute("role") === "combobox");
			await page.keyboard.type(`target ${tag}`);
			await page.waitForFunction((t) => {
				const options = [...document.querySelectorAll("dialog.switcher [role='option']")];
				return options.length === 1 && options[0]!.textContent!.includes(t);
			}, target);
			assert.equal(await dialog.locator("[role='option']").count(), 1);
			await page.keyboard.press("Enter");
			await page.waitForSelector("dialog", { state: "detached" });
			await page.waitForSelector(`.top .title:has-text(${JSON.stringify(target)})`);
			await composerFocused(page);
			await settled(page);
		});

		test("Ctrl+K right after a dialog closed opens the switcher, and the closed one's late close event leaves it open", async () => {
			await page.keyboard.press("Control+k");
			await page.waitForSelector("dialog.switcher[open]");
			// Closed and asked for again in one task: the close event of the first comes after the second opened.
			await page.evaluate(() => {
				document.querySelector<HTMLDialogElement>("dialog.switcher")!.close();
				document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "k", ctrlKey: true, bubbles: true }));
			});
			await page.waitForSelector("dialog.switcher[open]");
			await settled(page);
			assert.equal(await page.locator("dialog.switcher[open]").count(), 1, "still open after the late close event");
			await page.keyboard.press("Escape");
			await page.waitForSelector("dialog.switcher", { state: "detached" });
		});
	});
}
