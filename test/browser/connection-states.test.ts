/**
 * What the page shows while it is not connected: one reconnect countdown (in the bar, not in a toast), no
 * run controls, and a token field only when the service wants a token; in token mode, the field is focused,
 * a wrong token is called refused, and a successful connect leaves nothing stale on screen.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, openPage, settled, typeAndSend, VIEWPORTS } from "../support/browser.js";
import { startFakeOpenAi, writeFakeModelsJson, type FakeOpenAiServer } from "../support/fake-openai.js";
import { portForRestart } from "../support/restart-port.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";

const TOKEN = "connection-states-token";
let browser: Browser;
let model: FakeOpenAiServer;
let tokenSkiff: SkiffProcess;

before(async () => {
	browser = await launchBrowser();
	model = await startFakeOpenAi();
	const dir = tempDir();
	writeFileSync(join(dir, "token"), TOKEN, { mode: 0o600 });
	tokenSkiff = await startSkiff({ agentDir: tempDir(), args: ["--listen-token-file", join(dir, "token")] });
});

after(async () => {
	await browser?.close();
	await model?.close();
	await tokenSkiff?.stop();
});

/** Whether the element at the centre of `selector` is that element (or inside it): nothing covers it. */
function uncovered(page: Page, selector: string): Promise<boolean> {
	return page.evaluate((s) => {
		const el = document.querySelector(s)!;
		const r = el.getBoundingClientRect();
		const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
		return top !== null && el.contains(top);
	}, selector);
}

/** Waits until the focus is on the element labelled `label`. */
const focusOn = (page: Page, label: string) => page.waitForFunction((l) => document.activeElement?.getAttribute("aria-label") === l, label);

for (const viewport of VIEWPORTS) {
	describe(`connection states at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		test("while reconnecting: one countdown, one toast, no run controls, no token field on a tokenless service, the grid intact", async () => {
			const agentDir = tempDir();
			writeFakeModelsJson(agentDir, model.url);
			const cwd = tempDir();
			const listen = `127.0.0.1:${await portForRestart()}`;
			const args = ["--model", "fake/fake-model"];
			let skiff = await startSkiff({ agentDir, cwd, listen, args });
			const page = await openPage(browser, skiff.url, viewport);
			try {
				await typeAndSend(page, "REPLY one two three four five six seven eight nine ten\nSLOW 400");
				await page.waitForSelector(".msg.assistant.streaming:has-text('two')");
				await page.waitForSelector("[data-run='running']");
				assert.equal(await skiff.stop("SIGTERM"), 0);
				await page.waitForSelector('.pill[data-status="reconnecting"]');
				await page.waitForSelector(".connection:has-text('Reconnecting in')");
				await settled(page);

				const countdowns = await page.evaluate(() => document.body.innerText.match(/(retrying|reconnecting) in \d+ s/gi) ?? []);
				assert.equal(countdowns.length, 1, `one countdown on screen: ${JSON.stringify(countdowns)}`);
				// Issue 22 (item 18) asks for a toast as well as the bar; the countdown stays the bar's alone (checked above).
				assert.deepEqual(await page.locator(".toast").allTextContents(), ["Connection to the service lost: reconnecting…"], "the bar says it, and one toast");
				assert.equal(await page.locator(".badge.streaming").count(), 0, "no streaming badge");
				assert.equal(await page.locator("button.abort").count(), 0, "no Abort");
				assert.equal(await page.locator("button.send").textContent(), "Send", "no Steer");
				assert.equal(await page.locator("button.send").isDisabled(), true);
				assert.equal(await page.locator("input[aria-label='Access token']").count(), 0, "no token field: this service wants none");
				assert.match((await page.textContent(".live-region"))!, /Connection lost/);

				const geometry = await page.evaluate(() => {
					const r = (s: string) => document.querySelector(s)!.getBoundingClientRect();
					return { bar: r(".connection"), main: r(".main"), header: r("header.top"), panels: r("aside.panels"), height: innerHeight };
				});
				assert.ok(Math.abs(geometry.bar.top - geometry.header.bottom) <= 1, "the bar is under the header");
				assert.ok(Math.abs(geometry.bar.left - geometry.main.left) <= 1 && Math.abs(geometry.bar.right - geometry.main.right) <= 1, "inside the main column");
				if (!viewport.phone) assert.ok(Math.abs(geometry.panels.height - geometry.height) <= 1, "the side panel keeps the full height");

				skiff = await startSkiff({ agentDir, cwd, listen, args });
				// The page's own backoff may reconnect before the click, taking the button away: either way it connects.
				await Promise.race([page.click("button.retry").catch(() => undefined), page.waitForSelector('.pill[data-status="connected"]')]);
				await page.waitForSelector('.pill[data-status="connected"]');
				await settled(page);
				assert.equal(await page.locator(".connection").count(), 0);
				assert.equal(await page.locator(".toast").count(), 0);
			} finally {
				await page.context().close();
				await skiff.stop();
			}
		});

		test("token mode: the field is focused, a wrong token is called refused, and connecting leaves nothing stale or covering Send", async () => {
			const page = await openPage(browser, tokenSkiff.url, viewport, { connected: false });
			try {
				await page.waitForSelector('.pill[data-status="offline"]');
				await page.waitForSelector("input[aria-label='Access token']");
				assert.match((await page.textContent(".connection"))!, /needs an access token/i);
				await focusOn(page, "Access token"); // the token field has the focus

				await page.fill("input[aria-label='Access token']", "wrong-token");
				await page.click(".connection button:has-text('Connect')");
				await page.waitForSelector(".connection:has-text('The token was refused')");
				await focusOn(page, "Access token"); // again, to retype it

				await page.fill("input[aria-label='Access token']", TOKEN);
				await page.press("input[aria-label='Access token']", "Enter");
				await page.waitForSelector('.pill[data-status="connected"]');
				await settled(page);
				assert.equal(await page.locator(".connection").count(), 0, "no bar once connected");
				assert.equal(await page.locator(".toast").count(), 0, "no stale refusal");
				await page.fill("#composer", "ready to send");
				assert.equal(await uncovered(page, "button.send"), true, "nothing covers Send");
			} finally {
				await page.context().close();
			}
		});
	});
}
