/**
 * Text typed while the page changes session goes with the session asked for, at desktop and phone sizes. The
 * service's answer to new_session or switch_session is held on the page's socket (SocketGate) while the user
 * types: once it is released, the text is in the new session's box, after that session's own draft, and the old
 * session's draft is as it was when the change was asked for. It used to stay in the old session's draft, out of
 * view, and an Enter meanwhile sent it to the old session; now nothing is sent until the session shows, and the
 * box says it is opening. A change that fails leaves the text where it was typed.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { newSession, openPage, reconnected, runPrompt, settled, showPanel, useChatService, VIEWPORTS } from "../support/browser.js";
import { SocketGate } from "../support/socket-gate.js";

const chat = useChatService();

/** Waits until `condition` holds (checked every 20 ms; 30 s at most, then fails naming `what`). */
async function until(condition: () => boolean, what: string): Promise<void> {
	for (let waited = 0; !condition(); waited += 20) {
		if (waited > 30_000) assert.fail(`never: ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

for (const viewport of VIEWPORTS) {
	describe(`typing while the session changes at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		const tag = viewport.name;
		const gate = new SocketGate();
		let page: Page;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport, { before: (p) => gate.attach(p) });
		});
		after(() => page?.context().close());

		const current = () => page.evaluate(() => sessionStorage.getItem("skiff.session")!);
		/** A session's draft as the page keeps it (drafts.ts). */
		const draftOf = (sessionId: string) =>
			page.evaluate((id) => new Map<string, string>(JSON.parse(sessionStorage.getItem("skiff.drafts") ?? "[]")).get(id) ?? "", sessionId);
		const box = () => page.inputValue("#composer");

		/**
		 * With the change's answer held (`command`), asked for by `ask`: types `text` into the message box as a user
		 * does (it has the focus: the page gave it back) and presses Enter, which sends nothing while the box says the
		 * session is opening; then releases the answer and waits until the page shows another session.
		 */
		async function typeWhileOpening(command: string, ask: () => Promise<void>, text: string): Promise<string> {
			const from = await current();
			const sent = gate.commands.length;
			gate.holdAnswersTo = (c) => c === command;
			await ask();
			await until(() => gate.holding === 1, `the ${command} answer is held`);
			await page.waitForFunction(() => document.activeElement?.id === "composer");
			await page.keyboard.type(text);
			await page.keyboard.press("Enter");
			await page.waitForSelector(".composer-hint:has-text('Opening the session…')");
			assert.equal(await page.locator("button.send").isDisabled(), true, "Send waits for the session");
			const released = gate.commands.length;
			gate.release();
			await page.waitForFunction((id) => sessionStorage.getItem("skiff.session") !== id, from);
			await settled(page); // the frame that renders the session's box
			// What the page asks for once the session is shown (its lists) goes after any prompt Enter sent.
			await until(() => gate.commands.slice(released).includes("session_list"), "the lists read after the change");
			assert.deepEqual(
				gate.commands.slice(sent).filter((c) => c === "prompt" || c === "steer"),
				[],
				"Enter while the session was opening sent nothing",
			);
			return from;
		}

		test("New session: what is typed while it opens is in its box, the old draft is as it was, and Enter then sends it there", async () => {
			await newSession(page, viewport);
			await runPrompt(page, `Session A ${tag}\nREPLY first`);
			await page.fill("#composer", `draft of A ${tag}`);
			const typed = `Session B ${tag} typed while opening`;
			const a = await typeWhileOpening("new_session", async () => {
				await showPanel(page, viewport, "sessions");
				await page.click("button:has-text('New session')");
			}, typed);
			assert.equal(await box(), typed, "the text typed is in the new session's box");
			assert.equal(await draftOf(a), `draft of A ${tag}`, "the old session's draft is as it was");
			assert.equal(await page.locator(".msg.user").count(), 0, "a new session: nothing sent in it yet");
			await page.press("#composer", "Enter");
			await page.waitForSelector(`.msg.user:has-text('${typed}')`);
			await page.waitForSelector(".app[data-run='idle']");
			assert.equal(await box(), "");
		});

		test("switching from the list: the text goes after the chosen session's own draft", async () => {
			const b = await current();
			await page.fill("#composer", `draft of B ${tag}`);
			await typeWhileOpening("switch_session", async () => {
				await showPanel(page, viewport, "sessions");
				await page.locator(".session-list li", { hasText: `Session A ${tag}` }).locator(".session-open").click();
			}, "typed for A");
			await page.waitForSelector(`.top .title:has-text('Session A ${tag}')`);
			assert.equal(await box(), `draft of A ${tag}\n\ntyped for A`);
			assert.equal(await draftOf(b), `draft of B ${tag}`, "B's draft is as it was");
		});

		test("switching with Ctrl+K: the text goes with the session chosen", async () => {
			const a = await current();
			await typeWhileOpening("switch_session", async () => {
				await page.keyboard.press("Control+k");
				await page.locator("dialog.switcher input[role='combobox']").pressSequentially(`Session B ${tag}`);
				await page.waitForSelector(`dialog.switcher [role='option'][aria-selected='true']:has-text('Session B ${tag}')`);
				await page.keyboard.press("Enter");
				await page.locator("dialog.switcher").waitFor({ state: "hidden" });
			}, "typed after Ctrl+K");
			await page.waitForSelector(`.top .title:has-text('Session B ${tag}')`);
			assert.equal(await box(), `draft of B ${tag}\n\ntyped after Ctrl+K`);
			assert.equal(await draftOf(a), `draft of A ${tag}\n\ntyped for A`, "A's draft is as it was");
		});

		test("a change that fails leaves the text where it was typed, and nothing is sent", async () => {
			const b = await current();
			const sent = gate.commands.length;
			gate.holdAnswersTo = (c) => c === "new_session";
			await showPanel(page, viewport, "sessions");
			await page.click("button:has-text('New session')");
			await until(() => gate.holding === 1, "the new_session answer is held");
			await page.waitForFunction(() => document.activeElement?.id === "composer");
			await page.keyboard.type(" and more");
			await page.keyboard.press("Enter");
			await gate.drop(); // the answer never comes: the connection is lost with it
			gate.holdAnswersTo = undefined;
			await page.waitForSelector(".toast:has-text('new_session failed')");
			await reconnected(page);
			await settled(page);
			assert.equal(await current(), b, "still the session shown before");
			const kept = `draft of B ${tag}\n\ntyped after Ctrl+K and more`;
			assert.equal(await box(), kept, "the text stays in the box it was typed in");
			assert.equal(await draftOf(b), kept);
			assert.equal(await page.locator(".composer-hint:has-text('Opening the session')").count(), 0, "no longer opening");
			assert.deepEqual(gate.commands.slice(sent).filter((c) => c === "prompt" || c === "steer"), [], "Enter sent nothing");
			await page.fill("#composer", "");
		});
	});
}
