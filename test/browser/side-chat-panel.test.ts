/**
 * The side chat panel against the real service and the fake model: it says tabs are not saved, names are
 * checked inline, a tab answers in its own transcript (markdown and redaction as in the main one) while the
 * main conversation stays as it was, a message to a tab that is still answering is refused with a sentence,
 * Stop (and Esc) stop only that tab, tabs switch and close, and tabs opened elsewhere appear live.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { newSession, openPage, runPrompt, showPanel, useChatService, VIEWPORTS } from "../support/browser.js";
import { TestClient } from "../support/ws-client.js";

/** While set, the fake model holds its answer until the promise settles: a run stays under way. */
let holdModel: Promise<void> | undefined;

function hold(): () => void {
	let release!: () => void;
	holdModel = new Promise((resolve) => (release = resolve));
	return () => {
		holdModel = undefined;
		release();
	};
}

const chat = useChatService({ onModelRequest: () => holdModel });

const sessionOf = (page: Page) => page.evaluate(() => sessionStorage.getItem("skiff.session")!);
const box = (page: Page) => page.locator(".side-box textarea");

/** Sends a message from the shown tab's box and waits for its reply to end. */
async function sideTurn(page: Page, text: string): Promise<void> {
	const replies = await page.locator(".side-transcript .msg.assistant:not(.working)").count();
	await box(page).fill(text);
	await box(page).press("Enter");
	await page.waitForFunction((n) => document.querySelectorAll(".side-transcript .msg.assistant:not(.working):not(.streaming)").length > n, replies);
	await page.waitForSelector(".side-send");
}

for (const viewport of VIEWPORTS) {
	describe(`side chat panel at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let page: Page;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport);
			await newSession(page, viewport);
			await runPrompt(page, `The main question ${viewport.name}\nREPLY the main answer`);
		});
		after(() => page?.context().close());

		test("empty: says tabs are not saved, suggests a name and checks it inline", async () => {
			await showPanel(page, viewport, "side-chat");
			await page.waitForSelector(".side-chat .empty-state:has-text('No side chats')");
			assert.match((await page.textContent(".side-ephemeral"))!, /memory only.*lost when the session unloads.*restarts/);
			const name = page.locator("input[name='side-chat-name']");
			assert.equal(await name.inputValue(), "btw", "a free name is suggested");
			await name.fill("not allowed");
			await page.click("button:has-text('Open tab')");
			await page.waitForSelector("#side-new-error:has-text('letters, digits or underscores')");
			assert.equal(await name.getAttribute("aria-invalid"), "true");
			assert.equal(await page.locator(".side-tabs li").count(), 0, "nothing opened");
		});

		test("a tab answers in its own transcript, with markdown and redaction; the main conversation is untouched", async () => {
			const mainMessages = await page.locator("#transcript .msg").count();
			await page.fill("input[name='side-chat-name']", "why");
			await page.click("button:has-text('Open tab')");
			await page.waitForSelector(".side-tabs li.current[data-tab='why']");
			await page.waitForSelector(".side-transcript .side-empty");
			assert.match((await page.textContent(".side-meta"))!, /fake-model.*thinking off/);
			assert.match((await page.getAttribute(".side-meta span[title]", "title"))!, /^fake\/fake-model/);

			await sideTurn(page, "REPLY Side **bold** answer with `code` and sk-abcdefghijklmnopqrstuvwx1234");
			const reply = page.locator(".side-transcript .msg.assistant").last();
			assert.equal(await reply.locator("strong").textContent(), "bold", "markdown, as in the main transcript");
			assert.equal(await reply.locator("code").first().textContent(), "code");
			const text = (await reply.textContent())!;
			assert.match(text, /\[REDACTED\]/);
			assert.doesNotMatch(text, /sk-abcdefghijklmnop/, "secrets are redacted");
			assert.equal(await page.locator(".side-transcript .msg.user").count(), 1);
			assert.equal(await page.locator("#transcript .msg").count(), mainMessages, "the main transcript did not change");
			assert.equal(await page.getAttribute(".app", "data-run"), "idle", "the main session did not run");
		});

		test("a message while the tab answers is refused with a sentence and kept; Stop ends only the tab's run", async () => {
			const release = hold();
			try {
				await box(page).fill("REPLY never seen");
				await box(page).press("Enter");
				await page.waitForSelector(".side-stop");
				await page.waitForSelector(".side-tabs li[data-tab='why'] .side-busy");
				assert.equal(await page.getAttribute(".app", "data-run"), "idle", "the main session is not running");

				await box(page).fill("another question");
				await box(page).press("Enter");
				const notice = page.locator(".side-notice[role='alert']");
				await notice.waitFor();
				assert.match((await notice.textContent())!, /why is still answering: wait for its reply, or stop it/);
				assert.equal(await box(page).inputValue(), "another question", "the text stays in the box");

				await page.click(".side-stop");
				await page.waitForSelector(".side-transcript .msg.assistant .note:has-text('Stopped.')");
				await page.waitForSelector(".side-send");
				assert.equal(await page.locator(".side-tabs .side-busy").count(), 0);
			} finally {
				release();
			}
			await page.click(".side-notice button[aria-label='Dismiss']");
			await box(page).fill("");
		});

		test("Esc in the tab's box stops the tab, and leaves the panel open", async () => {
			const release = hold();
			try {
				await box(page).fill("REPLY held");
				await box(page).press("Enter");
				await page.waitForSelector(".side-stop");
				await box(page).press("Escape");
				await page.waitForSelector(".side-send");
				if (viewport.phone) assert.equal(await page.locator(".app.panel-open").count(), 1, "Esc stopped the tab only");
			} finally {
				release();
			}
		});

		test("a second tab: tabs switch with their own transcripts, and close", async () => {
			await page.click(".side-chat button:has-text('New tab')");
			const name = page.locator("input[name='side-chat-name']");
			await page.waitForFunction(() => document.activeElement?.getAttribute("name") === "side-chat-name");
			assert.equal(await name.inputValue(), "btw");
			await name.fill("why");
			await page.click("button:has-text('Open tab')");
			await page.waitForSelector("#side-new-error:has-text('A tab named why is open already')");
			await name.fill("second_tab");
			await page.click("button:has-text('Open tab')");
			await page.waitForSelector(".side-tabs li.current[data-tab='second_tab']");
			await page.waitForSelector(".side-transcript .side-empty");
			await sideTurn(page, "REPLY from the second tab");

			await page.click(".side-tabs li[data-tab='why'] .side-tab");
			await page.waitForSelector(".side-transcript .msg.assistant:has-text('Side')");
			assert.equal(await page.locator(".side-transcript .msg.assistant", { hasText: "from the second tab" }).count(), 0);

			await page.click("button[aria-label='Close side chat second_tab']");
			await page.waitForSelector(".side-tabs li[data-tab='second_tab']", { state: "detached" });
			assert.equal(await page.locator(".side-tabs li.current[data-tab='why']").count(), 1);
		});

		test("tabs opened and closed by another client appear live; at the limit New tab is disabled", async () => {
			const sessionId = await sessionOf(page);
			const client = await TestClient.connect(chat.service.skiff.wsUrl);
			try {
				await client.ok({ type: "side_chat_new", sessionId, name: "elsewhere" });
				await page.waitForSelector(".side-tabs li[data-tab='elsewhere']");
				for (let n = 3; n <= 8; n++) await client.ok({ type: "side_chat_new", sessionId, name: `extra_${n}` });
				await page.waitForFunction(() => document.querySelectorAll(".side-tabs li").length === 8);
				const newTab = page.locator(".side-chat .panel-actions button:has-text('New tab')");
				assert.equal(await newTab.isDisabled(), true);
				assert.match((await newTab.getAttribute("title"))!, /At most 8 side chats/);
				for (let n = 3; n <= 8; n++) await client.ok({ type: "side_chat_close", sessionId, name: `extra_${n}` });
				await client.ok({ type: "side_chat_close", sessionId, name: "elsewhere" });
				await page.waitForFunction(() => document.querySelectorAll(".side-tabs li").length === 1);
				assert.equal(await newTab.isDisabled(), false);
			} finally {
				client.close();
			}
		});

		test("after a reload the tabs come back, with the reply still being written, which then streams in, and a draft", async () => {
			const release = hold();
			try {
				await box(page).fill("REPLY written after the reload");
				await box(page).press("Enter");
				await page.waitForSelector(".side-stop");
				await page.reload();
				await page.waitForSelector('.pill[data-status="connected"]');
				await showPanel(page, viewport, "side-chat");
				await page.waitForSelector(".side-tabs li.current[data-tab='why'] .side-busy");
				await page.waitForSelector(".side-transcript .msg.assistant:has-text('Side')");
				await page.waitForSelector(".side-stop");
			} finally {
				release();
			}
			await page.waitForSelector(".side-transcript .msg.assistant:has-text('written after the reload')");
			await page.waitForSelector(".side-send");
			// What is typed in a tab and not sent comes back after a reload too, in that tab only.
			await box(page).fill("A question half written");
			await page.reload();
			await page.waitForSelector('.pill[data-status="connected"]');
			await showPanel(page, viewport, "side-chat");
			await page.waitForSelector(".side-tabs li.current[data-tab='why']");
			await page.waitForFunction(() => (document.querySelector("textarea[name='side-message']") as HTMLTextAreaElement | null)?.value === "A question half written");
			await box(page).fill("");
		});

		test("another session has its own tabs; coming back shows this one's", async () => {
			await newSession(page, viewport);
			await showPanel(page, viewport, "side-chat");
			await page.waitForSelector(".side-chat .empty-state:has-text('No side chats')");
			await showPanel(page, viewport, "sessions");
			await page.locator(".session-list li", { hasText: `The main question ${viewport.name}` }).first().locator(".session-open").click();
			await page.waitForSelector(`.top .title:has-text('The main question ${viewport.name}')`);
			await showPanel(page, viewport, "side-chat");
			await page.waitForSelector(".side-tabs li.current[data-tab='why']");
			await page.waitForSelector(".side-transcript .msg.assistant:has-text('Side')");
		});
	});
}
