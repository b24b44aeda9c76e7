/**
 * The message actions in Chromium against a real skiff and the fake model, at desktop and phone sizes: Copy puts a
 * prompt's text and an answer's markdown source (redacted, as shown) on the clipboard; Edit turns the bubble into
 * an editor whose Send starts a sibling branch (Esc gives up); Regenerate sends the prompt again on another; the
 * Tree panel shows those branches and the switcher ("‹ 2 / 3 ›") moves between them; all three are refused with
 * the reason during a run; an answer's footer names its model and tokens, and each message says when it was written.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { newSession, openPage, runPrompt, showPanel, typeAndSend, useChatService, VIEWPORTS } from "../support/browser.js";

const chat = useChatService();

const prompt = (page: Page, text: string) => page.locator(".msg.user", { has: page.locator(".bubble", { hasText: text }) });
const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());
/** The texts of the transcript's prompts and answers, in order. */
const transcript = (page: Page) => page.locator(".msg.user .bubble, .msg.assistant .md").allTextContents();

/** Waits until the transcript holds exactly these prompts and answers, and the page is idle. */
async function shows(page: Page, texts: string[]): Promise<void> {
	await page.waitForFunction(
		(want) => JSON.stringify([...document.querySelectorAll(".msg.user .bubble, .msg.assistant .md")].map((e) => e.textContent)) === want,
		JSON.stringify(texts),
	);
	await page.waitForSelector(".app[data-run='idle']");
}

/** The switcher of the prompt `text`: its "n / m" once it reads so. */
async function versions(page: Page, text: string, want: string): Promise<void> {
	await prompt(page, text).locator(".branches", { hasText: want }).waitFor();
	assert.equal(await prompt(page, text).locator(".branches").getAttribute("aria-label"), `Version ${want.replace(" / ", " of ")} of this message`);
}

/** The texts of the Tree panel's user rows (then back to the transcript on a phone). */
async function treePrompts(page: Page, viewport: (typeof VIEWPORTS)[number], count: number): Promise<string[]> {
	await showPanel(page, viewport, "tree");
	await page.waitForFunction((n) => document.querySelectorAll(".tree-row.kind-user").length === n, count);
	const rows = await page.locator(".tree-row.kind-user").allTextContents();
	if (viewport.phone) await page.click("button.panel-close");
	return rows;
}

for (const viewport of VIEWPORTS) {
	describe(`message actions at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let page: Page;
		const tag = viewport.name;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport);
			await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: chat.service.skiff.url });
		});
		after(() => page?.context().close());

		test("Copy puts the prompt's text and the answer's markdown source on the clipboard; the footer names model and tokens", async () => {
			await newSession(page, viewport);
			const secret = "sk-ant-api03-abcdefghijklmnopqrstuvwx";
			await runPrompt(page, `REPLY_JSON ${JSON.stringify(`Here is **bold** and \`code\` ${tag}\n\n- a list\n- key ${secret}`)}`);
			const user = page.locator(".msg.user").last();
			await user.locator("button[aria-label='Copy message']").click();
			await user.locator("button[aria-label='Copied']").waitFor();
			assert.match(await clipboard(page), /^REPLY_JSON "Here is \*\*bold\*\*/);
			const answer = page.locator(".msg.assistant").last();
			await answer.locator("button[aria-label='Copy message']").click();
			await page.waitForFunction(() => navigator.clipboard.readText().then((t) => t.startsWith("Here is")));
			assert.equal(await clipboard(page), `Here is **bold** and \`code\` ${tag}\n\n- a list\n- key [REDACTED]`, "the markdown source, redacted as shown");

			assert.match((await answer.locator(".usage").textContent())!, /^fake-model · \d+ in · \d+ out$/);
			assert.equal(await answer.locator(".usage").getAttribute("title"), "fake/fake-model");
			for (const [message, verb] of [[user, "Sent"], [answer, "Answered"]] as const) {
				const stamp = message.locator("time.stamp");
				assert.ok(Date.parse((await stamp.getAttribute("datetime"))!) > Date.now() - 600_000, "when it was written");
				assert.match((await stamp.getAttribute("aria-label"))!, new RegExp(`^${verb} `));
			}
			assert.equal(await page.locator(".branches").count(), 0, "one version: no switcher");
		});

		test("Edit and resend, then Regenerate, make branches the Tree panel shows and the switcher moves between", async () => {
			await newSession(page, viewport);
			await runPrompt(page, `REPLY one ${tag}`);
			await runPrompt(page, `REPLY two ${tag}`);
			// Edit, give up with Escape: nothing changes and the focus is back on Edit.
			await prompt(page, `REPLY two ${tag}`).locator("button.edit").click();
			const editor = page.locator(".msg-editor textarea");
			assert.equal(await editor.inputValue(), `REPLY two ${tag}`);
			assert.equal(await editor.evaluate((e) => e === document.activeElement), true, "the editor has the focus");
			await page.keyboard.press("Escape");
			await page.waitForFunction(() => document.activeElement?.classList.contains("edit"));
			// Edit and send: a sibling branch, run at once.
			await prompt(page, `REPLY two ${tag}`).locator("button.edit").click();
			await editor.fill(`REPLY edited ${tag}`);
			await page.locator(".msg-editor button[type='submit']").click();
			await shows(page, [`REPLY one ${tag}`, `one ${tag}`, `REPLY edited ${tag}`, `edited ${tag}`]);
			await versions(page, `REPLY edited ${tag}`, "2 / 2");
			assert.deepEqual((await treePrompts(page, viewport, 3)).map((t) => t.match(/REPLY \w+/)![0]), ["REPLY one", "REPLY two", "REPLY edited"]);

			// Regenerate the answer: the same prompt again, a third version.
			await page.locator(".msg.assistant").last().locator("button[aria-label='Regenerate']").click();
			await page.waitForSelector(".branches:has-text('3 / 3')");
			await shows(page, [`REPLY one ${tag}`, `one ${tag}`, `REPLY edited ${tag}`, `edited ${tag}`]);
			assert.equal((await treePrompts(page, viewport, 4)).filter((t) => t.includes(`REPLY edited ${tag}`)).length, 2);

			// The switcher moves between the versions, each with its own answer.
			await prompt(page, `REPLY edited ${tag}`).locator("button[aria-label='Previous version']").click();
			await versions(page, `REPLY edited ${tag}`, "2 / 3");
			await prompt(page, `REPLY edited ${tag}`).locator("button[aria-label='Previous version']").click();
			await shows(page, [`REPLY one ${tag}`, `one ${tag}`, `REPLY two ${tag}`, `two ${tag}`]);
			await versions(page, `REPLY two ${tag}`, "1 / 3");
			assert.equal(await prompt(page, `REPLY two ${tag}`).locator("button[aria-label='Previous version']").isDisabled(), true);
			await prompt(page, `REPLY two ${tag}`).locator("button[aria-label='Next version']").click();
			await shows(page, [`REPLY one ${tag}`, `one ${tag}`, `REPLY edited ${tag}`, `edited ${tag}`]);
			await versions(page, `REPLY edited ${tag}`, "2 / 3");
			assert.equal(await page.locator(".branches").count(), 1, "the first prompt has one version");
		});

		test("an edited message's @ mention goes with it as the file's content, as a sent message's does", async () => {
			await newSession(page, viewport);
			writeFileSync(join(chat.service.cwd, `notes-${tag}.md`), `the notes of ${tag}\n`);
			await runPrompt(page, `REPLY first ${tag}`);
			await prompt(page, `REPLY first ${tag}`).locator("button.edit").click();
			await page.locator(".msg-editor textarea").fill(`REPLY read ${tag}\nsee @notes-${tag}.md`);
			const before = chat.service.model.requests.length;
			await page.locator(".msg-editor button[type='submit']").click();
			await page.waitForSelector(`.msg.assistant:has-text('read ${tag}')`);
			const sent = JSON.stringify(chat.service.model.requests.slice(before).at(-1)?.body.messages.at(-1));
			assert.match(sent, new RegExp(`<file name=\\\\"notes-${tag}.md\\\\">\\\\nthe notes of ${tag}`), "the file's content went with it");
		});

		test("during a run, edit and resend, regenerate and switching branches are refused with the reason", async () => {
			await newSession(page, viewport);
			await runPrompt(page, `REPLY first ${tag}`);
			await page.locator(".msg.assistant").last().locator("button[aria-label='Regenerate']").click();
			await page.waitForSelector(".branches:has-text('2 / 2')");
			await shows(page, [`REPLY first ${tag}`, `first ${tag}`]);

			await typeAndSend(page, `held ${tag}\nRUN sleep 30`);
			await page.waitForSelector(".app[data-run='running']");
			await prompt(page, `REPLY first ${tag}`).locator("button.edit").click();
			await page.locator(".msg-editor textarea").fill(`REPLY second try ${tag}`);
			await page.locator(".msg-editor button[type='submit']").click();
			await page.waitForSelector(".toast:has-text('Cannot send an edited message while a run is active: wait for it to end, or stop it.')");
			assert.equal(await page.locator(".msg-editor textarea").inputValue(), `REPLY second try ${tag}`, "the edit is kept");
			await page.keyboard.press("Escape");
			// Each toast is dismissed once read: on a phone it lies over the first messages' buttons.
			const dismiss = () => page.locator(".toast button[aria-label='Dismiss']").first().click();
			await dismiss();
			await page.locator(".msg.assistant").first().locator("button[aria-label='Regenerate']").click();
			await page.waitForSelector(".toast:has-text('Cannot regenerate while a run is active')");
			await dismiss();
			await page.locator("button[aria-label='Previous version']").click();
			await page.waitForSelector(".toast:has-text('Cannot switch branches while a run is active')");
			await page.click("button.abort");
			await page.waitForSelector(".app[data-run='idle']");
			await page.waitForSelector(".branches:has-text('2 / 2')");
			assert.equal((await treePrompts(page, viewport, 3)).filter((t) => t.includes("REPLY second try")).length, 0, "nothing was sent");
		});
	});
}
