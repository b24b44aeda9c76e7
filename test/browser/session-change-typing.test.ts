/**
 * Text typed while the page changes session goes with the session asked for, at desktop and phone sizes. The
 * service's answer to new_session or switch_session is held on the page's socket (SocketGate) while the user
 * types: once it is released, the text is in the new session's box, after that session's own draft, and the old
 * session's draft is as it was when the change was asked for. It used to stay in the old session's draft, out of
 * view, and an Enter meanwhile sent it to the old session; now nothing is sent until the session shows, and the
 * box says it is opening. A change that fails leaves the text where it was typed. Images attached in a box stay
 * with its session too (they went with the box, even while uploading).
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
		/** Two recorded sessions, each with a draft: Alpha (a), then Bravo (b, shown when the tests begin). */
		let a: string;
		let b: string;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport, { before: (p) => gate.attach(p) });
			const made: string[] = [];
			for (const name of ["Alpha", "Bravo"]) {
				await newSession(page, viewport);
				await runPrompt(page, `${name} ${tag}\nREPLY fine`);
				await page.fill("#composer", `draft of ${name} ${tag}`);
				made.push(await current());
			}
			[a, b] = made as [string, string];
		});
		after(() => page?.context().close());

		const current = () => page.evaluate(() => sessionStorage.getItem("skiff.session")!);
		/** A session's draft as the page keeps it (drafts.ts). */
		const draftOf = (sessionId: string) =>
			page.evaluate((id) => new Map<string, string>(JSON.parse(sessionStorage.getItem("skiff.drafts") ?? "[]")).get(id) ?? "", sessionId);
		const box = () => page.inputValue("#composer");
		const sends = (from: number) => gate.commands.slice(from).filter((c) => c === "prompt" || c === "steer");

		/**
		 * With the change's answer held (`command`), asked for by `ask`: types `text` at the end of the message box,
		 * as a user does, and presses Enter; then releases the answer and waits until the page shows another session
		 * and has rendered it. Says what the page did meanwhile: whether it gave the focus to the box, whether the box
		 * said the session was opening (and Send waited), and what it sent.
		 */
		async function typeWhileOpening(command: string, ask: () => Promise<void>, text: string) {
			const from = await current();
			const sent = gate.commands.length;
			gate.holdAnswersTo = (c) => c === command;
			await ask();
			await until(() => gate.holding === 1, `the ${command} answer is held`);
			await settled(page);
			const focusGiven = await page.evaluate(() => document.activeElement?.id === "composer");
			await typeAtEnd(text);
			const opening = {
				said: await page.locator(".composer-hint:has-text('Opening the session…')").isVisible(),
				sendWaits: await page.locator("button.send").isDisabled(),
			};
			const released = gate.commands.length;
			gate.release();
			await page.waitForFunction((id) => sessionStorage.getItem("skiff.session") !== id, from);
			await settled(page); // the frame that renders the session's box
			// What the page asks for once the session is shown (its lists) goes after any prompt Enter sent.
			await until(() => gate.commands.slice(released).includes("session_list"), "the lists read after the change");
			return { from, focusGiven, opening, sent: sends(sent) };
		}

		/** Types at the end of the message box and presses Enter (the page puts the caret there when it gives the focus). */
		async function typeAtEnd(text: string): Promise<void> {
			await page.evaluate(() => {
				const el = document.getElementById("composer") as HTMLTextAreaElement;
				el.focus();
				el.setSelectionRange(el.value.length, el.value.length);
			});
			await page.keyboard.type(text);
			await page.keyboard.press("Enter");
		}

		/** What the page did while the session opened: nothing sent, the box said so, and it had the focus to type. */
		function assertWaited(meanwhile: Awaited<ReturnType<typeof typeWhileOpening>>): void {
			assert.deepEqual(meanwhile.sent, [], "Enter while the session was opening sent nothing");
			assert.deepEqual(meanwhile.opening, { said: true, sendWaits: true }, "the box said the session was opening, Send waited");
			assert.equal(meanwhile.focusGiven, true, "the page gave the focus to the box at once, to type");
		}

		test("New session: what is typed while it opens is in its box, the old draft is as it was, and Enter then sends it there", async () => {
			const typed = `typed for the new session ${tag}`;
			const meanwhile = await typeWhileOpening("new_session", async () => {
				await showPanel(page, viewport, "sessions");
				await page.click("button:has-text('New session')");
			}, typed);
			assert.equal(meanwhile.from, b);
			assert.equal(await box(), typed, "the text typed is in the new session's box");
			assert.equal(await draftOf(b), `draft of Bravo ${tag}`, "the old session's draft is as it was");
			assertWaited(meanwhile);
			assert.equal(await page.locator(".msg.user").count(), 0, "a new session: nothing sent in it yet");
			await page.press("#composer", "Enter");
			await page.waitForSelector(`.msg.user:has-text('${typed}')`);
			await page.waitForSelector(".app[data-run='idle']");
			assert.equal(await box(), "");
		});

		test("switching from the list: the text goes after the chosen session's own draft", async () => {
			await page.fill("#composer", `draft of the new session ${tag}`);
			const meanwhile = await typeWhileOpening("switch_session", async () => {
				await showPanel(page, viewport, "sessions");
				await page.locator(".session-list li", { hasText: `Alpha ${tag}` }).locator(".session-open").click();
			}, "typed for Alpha");
			assert.equal(await current(), a);
			assert.equal(await box(), `draft of Alpha ${tag}\n\ntyped for Alpha`, "the text typed is in Alpha's box, after its draft");
			assert.equal(await draftOf(meanwhile.from), `draft of the new session ${tag}`, "the old session's draft is as it was");
			assertWaited(meanwhile);
		});

		test("switching with Ctrl+K: the text goes with the session chosen", async () => {
			const kept = await box();
			const meanwhile = await typeWhileOpening("switch_session", async () => {
				await page.keyboard.press("Control+k");
				await page.locator("dialog.switcher input[role='combobox']").pressSequentially(`Bravo ${tag}`);
				await page.waitForSelector(`dialog.switcher [role='option'][aria-selected='true']:has-text('Bravo ${tag}')`);
				await page.keyboard.press("Enter");
				await page.locator("dialog.switcher").waitFor({ state: "hidden" });
			}, "typed after Ctrl+K");
			assert.equal(await current(), b);
			assert.equal(await box(), `draft of Bravo ${tag}\n\ntyped after Ctrl+K`, "the text typed is in Bravo's box, after its draft");
			assert.equal(await draftOf(a), kept, "Alpha's draft is as it was");
			assertWaited(meanwhile);
		});

		test("a change that fails leaves the text where it was typed, and nothing is sent", async () => {
			const kept = await box();
			const sent = gate.commands.length;
			gate.holdAnswersTo = (c) => c === "new_session";
			await showPanel(page, viewport, "sessions");
			await page.click("button:has-text('New session')");
			await until(() => gate.holding === 1, "the new_session answer is held");
			await settled(page);
			await typeAtEnd(" and more");
			await gate.drop(); // the answer never comes: the connection is lost with it
			gate.holdAnswersTo = undefined;
			await page.waitForSelector(".toast:has-text('new_session failed')");
			await reconnected(page);
			await settled(page);
			assert.equal(await current(), b, "still the session shown before");
			assert.equal(await box(), `${kept} and more`, "the text stays in the box it was typed in");
			assert.equal(await draftOf(b), `${kept} and more`);
			assert.deepEqual(sends(sent), [], "Enter sent nothing");
			assert.equal(await page.locator(".composer-hint.busy").count(), 0, "no longer opening");
		});

		test("images attached in a box stay with its session: away while uploading and back, they show uploaded and go with the message", async () => {
			// Uploads wait until released: the image is still uploading when the session changes.
			let release!: () => void;
			const released = new Promise<void>((done) => (release = done));
			await page.route("**/attachments", async (route) => {
				await released;
				await route.continue();
			});
			try {
				const text = `REPLY seen\nlook at this ${tag}`;
				await page.fill("#composer", text);
				await pasteImage();
				await page.waitForSelector(".attachments li.busy img");
				await switchTo(`Alpha ${tag}`, a);
				assert.equal(await page.locator(".attachments li").count(), 0, "Alpha's box holds no image");
				release();
				await page.waitForResponse((response) => response.url().endsWith("/attachments"));
				await switchTo(`Bravo ${tag}`, b);
				assert.equal(await box(), text);
				await page.waitForSelector(".attachments li:not(.busy):not(.failed) img");
				const requests = chat.service.model.requests.length;
				await page.press("#composer", "Enter");
				await page.waitForSelector(`.msg.user:has-text('look at this ${tag}') .user-images img`);
				await until(() => chat.service.model.requests.length > requests, "the model asked");
				const request = chat.service.model.requests.at(-1)!;
				const user = [...request.body.messages].reverse().find((m: { role: string }) => m.role === "user");
				assert.match(JSON.stringify(user.content), /"image_url"/, "the model got the image");
				assert.equal(await page.locator(".attachments li").count(), 0, "sent: the box holds no image");
			} finally {
				release();
				await page.unroute("**/attachments");
			}
		});

		/** Shows the listed session titled `title` (its id `id`) and waits for its box. */
		async function switchTo(title: string, id: string): Promise<void> {
			await showPanel(page, viewport, "sessions");
			await page.locator(".session-list li", { hasText: title }).locator(".session-open").click();
			await page.waitForFunction((want) => sessionStorage.getItem("skiff.session") === want, id);
			await settled(page);
			if (viewport.phone) await page.waitForSelector(".app:not(.panel-open)");
		}

		/** Pastes a small picture made in the page into the message box. */
		function pasteImage(): Promise<void> {
			return page.evaluate(async () => {
				const canvas = Object.assign(document.createElement("canvas"), { width: 30, height: 20 });
				canvas.getContext("2d")!.fillRect(0, 0, 30, 20);
				const blob = await new Promise<Blob>((done) => canvas.toBlob((b) => done(b!), "image/png"));
				const transfer = new DataTransfer();
				transfer.items.add(new File([blob], "shot.png", { type: "image/png" }));
				const box = document.getElementById("composer")!;
				box.focus();
				box.dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }));
			});
		}
	});
}
