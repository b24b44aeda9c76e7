/**
 * The settings panel in Chromium against a real skiff, at desktop and phone sizes: the catalog grouped by
 * category with a search; a typed editor per type (switch, choice, number with its range, text, list) with
 * inline validation (the page's own for numbers, the service's for the rest); the pending changes as a diff;
 * applying, with what is live and what waits for new sessions, written to settings.json and pushed to other
 * clients; secrets shown only as set or unset (a literal never leaves the page); the memory backend saved;
 * explicit project trust and a project file; and a stale draft refused.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { type ChatService, launchBrowser, openPage, settled, showPanel, startChatService, VIEWPORTS } from "../support/browser.js";

let browser: Browser;

before(async () => {
	browser = await launchBrowser();
});

after(async () => {
	await browser?.close();
});

/** The editor of a catalog key (its id is the key with dashes). */
const editor = (key: string) => `#setting-${key.replace(/[^A-Za-z0-9]/g, "-")}`;
const block = (key: string) => `.setting[data-key="${key}"]`;

const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, any>;

/** Types a value into a text or number editor and commits it with Enter; waits until the key is pending. */
async function enter(page: Page, key: string, value: string): Promise<void> {
	await page.fill(editor(key), value);
	await page.press(editor(key), "Enter");
	await page.waitForSelector(`${block(key)}.pending`);
}

for (const viewport of VIEWPORTS) {
	describe(`the settings panel at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let service: ChatService;
		let page: Page;
		before(async () => {
			service = await startChatService();
			page = await openPage(browser, service.skiff.url, viewport);
			await showPanel(page, viewport, "settings");
			await page.waitForSelector(block("compaction.enabled"));
		});
		after(async () => {
			await page?.context().close();
			await service?.close();
		});

		test("each key is named in words, with the key itself beside it", async () => {
			const label = (key: string) => page.locator(`${block(key)} label.setting-key`).textContent();
			assert.equal(await label("defaultProvider"), "Default provider defaultProvider");
			assert.equal(await label("memory.remoteApiToken"), "Remote API token memory.remoteApiToken");
			assert.equal(await label("retry.baseDelayMs"), "Base delay (ms) retry.baseDelayMs");
			assert.equal(await label("mcpServers"), "MCP servers mcpServers");
			// The field is still found by its name in words (its label).
			assert.equal(await page.getByLabel("Default thinking level").getAttribute("id"), "setting-defaultThinkingLevel");
		});

		test("keys grouped by category, and a search", async () => {
			for (const category of ["Models", "Session", "Compaction", "Retry", "Memory"]) {
				assert.equal(await page.locator(`.panel.settings section[aria-label="${category}"]`).count(), 1, category);
			}
			await page.fill(".settings-search", "retry");
			await page.waitForFunction(() => document.querySelectorAll(".setting").length === 3);
			assert.deepEqual(await page.locator(".setting").evaluateAll((els) => els.map((e) => e.getAttribute("data-key"))), ["retry.enabled", "retry.maxRetries", "retry.baseDelayMs"]);
			await page.fill(".settings-search", "no such setting at all");
			await page.waitForSelector(".panel.settings .empty-state:has-text('No setting matches')");
			await page.fill(".settings-search", "");
			await page.waitForSelector(block("memory.backend"));
		});

		test("typed editors with inline validation, a diff of the pending changes, and apply saying what is live", async () => {
			const other = await openPage(browser, service.skiff.url, viewport);
			try {
				await showPanel(other, viewport, "settings");
				await other.waitForSelector(block("compaction.reserveTokens"));

				// A number out of range is refused as it is typed, before anything is sent.
				await page.fill(editor("compaction.reserveTokens"), "-5");
				await page.waitForSelector(`${block("compaction.reserveTokens")} .error-text:has-text('must be a whole number from 1 to 1,000,000')`);
				assert.equal(await page.getAttribute(editor("compaction.reserveTokens"), "aria-invalid"), "true");
				await page.press(editor("compaction.reserveTokens"), "Enter");
				assert.equal(await page.locator(".settings-pending").count(), 0, "nothing pending");
				await enter(page, "compaction.reserveTokens", "32768");

				// A switch (Space toggles it), a choice, a list of choices, and text with the service's objection.
				await page.focus(editor("compaction.enabled"));
				await page.keyboard.press("Space");
				await page.waitForSelector(`${block("compaction.enabled")}.pending`);
				await page.selectOption(editor("defaultThinkingLevel"), "high");
				await page.waitForSelector(`${block("defaultThinkingLevel")}.pending`);
				await page.check(`${block("memory.remoteRecallTypes")} label:has-text('observation') input`);
				await page.waitForSelector(`${block("memory.remoteRecallTypes")}.pending`);
				await page.fill(editor("memory.remoteBankId"), "not a bank!");
				await page.press(editor("memory.remoteBankId"), "Enter");
				await page.waitForSelector(`${block("memory.remoteBankId")} .error-text:has-text('memory.remoteBankId')`);
				assert.equal(await page.locator(`${block("memory.remoteBankId")}.pending`).count(), 0);

				// Keys that only work together: the problem shows in the diff and Apply waits for it.
				await enter(page, "defaultProvider", "fake");
				await page.waitForSelector(".settings-pending .error-text:has-text('defaultModel')");
				// ...and under the field it names, where the fix is typed.
				await page.waitForSelector(`${block("defaultModel")}.invalid .error-text:has-text('needs \`defaultModel\` too')`);
				assert.equal(await page.getAttribute(editor("defaultModel"), "aria-invalid"), "true");
				assert.equal(await page.isDisabled(".settings-pending button:has-text('Apply')"), true);
				await enter(page, "defaultModel", "fake-model");
				await page.waitForFunction(() => !document.querySelector(".settings-pending .error-text"));

				const diff = await page.locator(".settings-pending .diff li").allTextContents();
				assert.equal(diff.length, 6);
				assert.match(diff.find((d) => d.includes("reserveTokens"))!, /unset.*32,768/);
				assert.match(diff.find((d) => d.includes("compaction.enabled"))!, /unset.*off/);
				assert.match((await page.textContent(".settings-pending .pending-title"))!, /6 changes to/);
				// Six changes take one line of the panel (each changed key is marked where it is); the diff opens on demand.
				const share = await page.evaluate(() => document.querySelector(".settings-pending")!.getBoundingClientRect().height / document.querySelector(".panel.settings")!.getBoundingClientRect().height);
				assert.ok(share < 0.12, `the pending box takes ${Math.round(share * 100)} % of the panel`);
				await page.click(".settings-pending summary");
				await page.locator(".settings-pending .diff li").nth(5).waitFor();
				await page.click(".settings-pending summary");

				await page.click(".settings-pending button:has-text('Apply')");
				await page.waitForSelector(".settings-outcome");
				const outcome = (await page.textContent(".settings-outcome"))!;
				assert.match(outcome, /Live now\s*compaction\.enabled, compaction\.reserveTokens, memory\.remoteRecallTypes/);
				assert.match(outcome, /In new sessions\s*defaultProvider, defaultModel, defaultThinkingLevel/);
				const saved = readJson(join(service.agentDir, "settings.json"));
				assert.deepEqual(saved.compaction, { enabled: false, reserveTokens: 32768 });
				assert.equal(saved.defaultThinkingLevel, "high");
				assert.deepEqual(saved.memory.remoteRecallTypes, ["world", "experience", "observation"]);
				assert.match((await page.textContent(`${block("compaction.reserveTokens")} .setting-meta`))!, /now: 32,768 \(global file\)/);

				// Another client learns of it by the event, without asking.
				await other.waitForFunction((sel) => (document.querySelector(sel) as HTMLInputElement).value === "32768", editor("compaction.reserveTokens"));
				assert.equal(await other.isChecked(editor("compaction.enabled")), false);

				// Reset removes a key from the file again.
				await page.click(`${block("compaction.reserveTokens")} button:has-text('Reset')`);
				await page.waitForSelector(".settings-pending .diff li:has-text('compaction.reserveTokens')", { state: "attached" });
				await page.click(".settings-pending button:has-text('Apply')");
				await page.waitForSelector(".settings-outcome");
				assert.deepEqual(readJson(join(service.agentDir, "settings.json")).compaction, { enabled: false });
			} finally {
				await other.context().close();
			}
		});

		test("a secret shows as set or unset, a literal never leaves the page, and the memory backend is saved", async () => {
			const secret = block("memory.remoteApiToken");
			assert.match((await page.textContent(`${secret} .setting-secret .tag`))!, /not set/);
			await page.fill(editor("memory.remoteApiToken"), "sk-literal-secret-value-123");
			await page.press(editor("memory.remoteApiToken"), "Enter");
			await page.waitForSelector(`${secret} .error-text:has-text('never the secret itself')`);
			assert.equal(await page.inputValue(editor("memory.remoteApiToken")), "", "the field is emptied");
			assert.equal(await page.locator(".settings-pending .diff").count(), 0, "nothing pending");
			assert.doesNotMatch((await page.content())!, /sk-literal-secret-value-123/);

			await page.fill(editor("memory.remoteApiToken"), "$HOME");
			await page.press(editor("memory.remoteApiToken"), "Enter");
			await page.waitForSelector(`${secret}.pending`);
			assert.match((await page.textContent(".settings-pending .diff li"))!, /unset.*\[REDACTED\]/);
			await page.selectOption(editor("memory.backend"), "off");
			await page.waitForSelector(`${block("memory.backend")}.pending`);
			await page.click(".settings-pending button:has-text('Apply')");
			await page.waitForSelector(".settings-outcome:has-text('memory.backend')");
			assert.match((await page.textContent(`${secret} .setting-secret .tag`))!, /set \[REDACTED\]/);
			assert.doesNotMatch((await page.textContent("aside.panels"))!, /\$HOME/, "the reference is not echoed either");
			const saved = readJson(join(service.agentDir, "settings.json"));
			assert.equal(saved.memory.backend, "off");
			assert.equal(saved.memory.remoteApiToken, "$HOME");
			await page.waitForSelector(".memory-tools:has-text('no memory tools')");
		});

		test("a project counts only once trusted, explicitly; its draft writes the project's file", async () => {
			await page.click(".segmented button:has-text('This project')");
			await page.waitForSelector(".trust:has-text('not trusted')");
			assert.equal(await page.locator(".setting").count(), 0, "nothing to edit before trusting");
			await page.click(".trust button:has-text('Trust this project')");
			await page.waitForSelector(".trust.trusted");
			await page.waitForSelector(".settings-outcome:has-text('The project is trusted')");
			assert.equal(await page.isDisabled(editor("memory.remoteApiUrl")), true);
			assert.match((await page.textContent(`${block("memory.remoteApiUrl")} .setting-meta`))!, /global file only/);

			await page.selectOption(editor("steeringMode"), "all");
			await page.waitForSelector(`${block("steeringMode")}.pending`);
			await page.click(".settings-pending button:has-text('Apply')");
			await page.waitForSelector(".settings-outcome:has-text('steeringMode')");
			assert.equal(readJson(join(service.cwd, ".skiff", "settings.json")).steeringMode, "all");
			assert.match((await page.textContent(`${block("steeringMode")} .setting-meta`))!, /now: all \(project file\)/);

			await page.click(".trust button:has-text('Stop trusting it')");
			await page.waitForSelector(".trust:not(.trusted)");
			await page.click(".segmented button:has-text('Global')");
			await page.waitForSelector(block("steeringMode"));
			assert.match((await page.textContent(`${block("steeringMode")} .setting-meta`))!, /now: one-at-a-time \(default\)/);
		});

		test("a draft of a file changed meanwhile is refused, and can be discarded", async () => {
			await enter(page, "retry.maxRetries", "7");
			const path = join(service.agentDir, "settings.json");
			writeFileSync(path, JSON.stringify({ ...readJson(path), retry: { baseDelayMs: 5000 } }, null, 2));
			await page.click(".settings-pending button:has-text('Apply')");
			await page.waitForSelector(".settings-pending .error-text:has-text('changed since')");
			assert.equal(readJson(path).retry.maxRetries, undefined, "nothing written");
			await page.click(".settings-pending button:has-text('Discard')");
			await page.waitForSelector(".settings-pending", { state: "detached" });
			await settled(page);
			assert.equal(await page.locator(".setting.pending").count(), 0);
		});
	});
}
