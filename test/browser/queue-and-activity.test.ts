/**
 * Messages queued for a run and what the run is doing: a steer (or a follow-up) shows as a pending bubble
 * until the agent takes it, then as an ordinary user message; after a stop, what was not taken comes back to
 * the composer with a note and is never delivered later; while nothing streams, the transcript says the
 * agent is working (or which tool runs), without motion for those who prefer reduced motion. A message sent as
 * a run ends or begins, before the page has heard so, is still delivered: the service refuses a steer with no
 * run (or a prompt during one) and the page sends it once the other way, without a word to the user; the page's
 * view is held back by delaying the events it receives (answers pass) from a chosen event on.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { newSession, openPage, runPrompt, typeAndSend, useChatService, VIEWPORTS } from "../support/browser.js";
import { tempDir } from "../support/skiff-process.js";
import { SocketGate } from "../support/socket-gate.js";
import { until } from "../support/until.js";
import { TestClient } from "../support/ws-client.js";

const chat = useChatService({ onModelRequest: () => holdModel });
/** While set, the fake model holds its answer until the promise settles (the run has started, nothing streams). */
let holdModel: Promise<void> | undefined;

/**
 * A reply that streams all but its last word and then holds (HOLD) until the test releases it: the run goes on for
 * exactly as long as the test needs it to, however slow the machine.
 */
let holds = 0;
function heldReply(): { prompt: string; release: () => void } {
	const name = `held-${++holds}`;
	return { prompt: `REPLY ${Array.from({ length: 24 }, (_, i) => `word${i}`).join(" ")}\nHOLD ${name}`, release: () => chat.service.model.release(name) };
}

for (const viewport of VIEWPORTS) {
	describe(`queued messages and activity at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let page: Page;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport);
			await newSession(page, viewport);
		});
		after(() => page?.context().close());

		test("a steer typed during a reply shows as a pending bubble, then as a normal user message once delivered", async () => {
			const reply = heldReply();
			await typeAndSend(page, reply.prompt);
			await page.waitForSelector(".msg.assistant.streaming:has-text('word1')");
			await typeAndSend(page, `REPLY steered-${viewport.name}`);
			const pending = page.locator(".msg.user.pending", { hasText: `steered-${viewport.name}` });
			await pending.waitFor();
			assert.match((await pending.locator(".pending-label").textContent())!, /Steer/);
			// It waits under the reply being written.
			const order = await page.evaluate(() => {
				const reply = document.querySelector(".msg.assistant.streaming")!;
				const bubble = document.querySelector(".msg.pending")!;
				return reply.compareDocumentPosition(bubble) & Node.DOCUMENT_POSITION_FOLLOWING;
			});
			assert.ok(order, "the pending bubble is below the streaming reply");

			reply.release();
			await page.waitForSelector(".app[data-run='idle']");
			assert.equal(await page.locator(".msg.pending").count(), 0);
			assert.equal(await page.locator(".msg.user:not(.pending)", { hasText: `steered-${viewport.name}` }).count(), 1, "delivered: an ordinary user message");
			assert.equal(await page.locator(".msg.assistant", { hasText: `steered-${viewport.name}` }).count(), 1, "and answered");
		});

		test("a follow-up queued by another client shows as pending until the run takes it", async () => {
			const sessionId = await page.evaluate(() => sessionStorage.getItem("skiff.session"));
			const client = await TestClient.connect(chat.service.skiff.wsUrl);
			try {
				const reply = heldReply();
				await typeAndSend(page, reply.prompt);
				await page.waitForSelector(".msg.assistant.streaming:has-text('word1')");
				await client.ok({ type: "follow_up", message: `REPLY followed-${viewport.name}`, sessionId });
				const pending = page.locator(".msg.user.pending", { hasText: `followed-${viewport.name}` });
				await pending.waitFor();
				assert.match((await pending.locator(".pending-label").textContent())!, /Follow-up/);
				reply.release();
				await page.waitForSelector(".app[data-run='idle']");
				assert.equal(await page.locator(".msg.pending").count(), 0);
				assert.equal(await page.locator(".msg.user", { hasText: `followed-${viewport.name}` }).count(), 1);
			} finally {
				client.close();
			}
		});

		test("after a stop, the steer the run did not take comes back after the draft, with a note, and is never sent later", async () => {
			const marker = `never-delivered-${viewport.name}`;
			await typeAndSend(page, heldReply().prompt); // never released: the stop ends it
			await page.waitForSelector(".msg.assistant.streaming:has-text('word1')");
			await typeAndSend(page, `REPLY ${marker}`);
			await page.locator(".msg.user.pending", { hasText: marker }).waitFor();
			await page.fill("#composer", "my unfinished draft");
			await page.click("button.abort");
			await page.waitForSelector(".composer-note");
			assert.match((await page.textContent(".composer-note"))!, /not delivered/);
			assert.equal(await page.inputValue("#composer"), `my unfinished draft\n\nREPLY ${marker}`);
			assert.equal(await page.locator(".msg.pending").count(), 0);

			const requestsBefore = chat.service.model.requests.length;
			await page.fill("#composer", "REPLY after the stop");
			await runPrompt(page, "REPLY after the stop");
			const later = chat.service.model.requests.slice(requestsBefore).map((r) => JSON.stringify(r.body.messages));
			assert.ok(later.length > 0 && later.every((body) => !body.includes(marker)), "the model never got it");
			assert.equal(await page.locator(".msg.user", { hasText: marker }).count(), 0, "nor the transcript");
			assert.equal(await page.locator(".composer-note").count(), 0, "sending clears the note");
		});

		test("while the model has not answered yet the transcript shows the agent working; the reply replaces it", async () => {
			let release!: () => void;
			holdModel = new Promise((resolve) => (release = resolve));
			try {
				await typeAndSend(page, "REPLY finally here");
				const working = page.locator(".transcript .msg.working");
				await working.waitFor();
				assert.match((await working.textContent())!, /Working/);
				assert.equal(await page.locator(".transcript-content > :last-child").evaluate((el) => el.classList.contains("working")), true, "in the assistant's place, last");
				assert.equal(await working.getAttribute("aria-live"), null, "not read out");
				assert.equal(await page.locator(".msg.working .dots i").first().evaluate((el) => getComputedStyle(el).animationName), "dot");
			} finally {
				holdModel = undefined;
				release();
			}
			await page.waitForSelector(".app[data-run='idle']");
			assert.equal(await page.locator(".msg.working").count(), 0);
			assert.equal(await page.locator(".msg.assistant", { hasText: "finally here" }).count(), 1);
		});

		test("while a tool runs the transcript says which one", async () => {
			// The command runs until the test has seen what it looks for (a file it waits for), not for a fixed time.
			const gate = join(tempDir(), "gate");
			await typeAndSend(page, `RUN until [ -e '${gate}' ]; do sleep 0.05; done; echo slept`);
			await page.waitForSelector(".msg.working:has-text('Running bash…')");
			writeFileSync(gate, "");
			await page.waitForSelector(".app[data-run='idle']");
			assert.equal(await page.locator(".msg.working").count(), 0);
		});
	});
}

test("with reduced motion the working indicator does not move", async () => {
	const page = await openPage(chat.browser, chat.service.skiff.url, VIEWPORTS[0], { reducedMotion: "reduce" });
	let release!: () => void;
	holdModel = new Promise((resolve) => (release = resolve));
	try {
		await newSession(page, VIEWPORTS[0]);
		await typeAndSend(page, "REPLY still");
		await page.waitForSelector(".msg.working");
		assert.equal(await page.locator(".msg.working .dots i").first().evaluate((el) => getComputedStyle(el).animationName), "none");
	} finally {
		holdModel = undefined;
		release();
		await page.waitForSelector(".app[data-run='idle']");
		await page.context().close();
	}
});

async function gatedPage(): Promise<{ page: Page; gate: SocketGate }> {
	const gate = new SocketGate();
	const page = await openPage(chat.browser, chat.service.skiff.url, VIEWPORTS[0], { before: (p) => gate.attach(p) });
	await newSession(page, VIEWPORTS[0]);
	return { page, gate };
}

test("Enter after the run ended, before the page heard it: the steer is refused and sent as a prompt", async () => {
	const { page, gate } = await gatedPage();
	try {
		gate.holdEventsFrom = (event) => event.type === "agent_end";
		await typeAndSend(page, "REPLY the first reply");
		await until(() => gate.holding > 0);
		await page.waitForSelector(".msg.assistant:has-text('the first reply')");
		assert.equal(await page.getAttribute(".app", "data-run"), "running", "the page still thinks the run goes on");

		await typeAndSend(page, "REPLY sent across the edge");
		await until(() => gate.commands.filter((c) => c === "prompt").length === 2);
		assert.deepEqual(gate.commands.filter((c) => c === "prompt" || c === "steer"), ["prompt", "steer", "prompt"]);
		gate.release();
		await page.waitForSelector(".msg.assistant:has-text('sent across the edge')");
		await page.waitForSelector(".app[data-run='idle']");
		assert.equal(await page.locator(".msg.user", { hasText: "sent across the edge" }).count(), 1);
		assert.equal(await page.locator(".toast").count(), 0, "nothing to tell the user");
		assert.equal(await page.inputValue("#composer"), "", "the message box is empty: nothing was given back");
	} finally {
		await page.context().close();
	}
});

test("Enter after another client started a run, before the page heard it: the prompt is refused and sent as a steer", async () => {
	const { page, gate } = await gatedPage();
	const sessionId = await page.evaluate(() => sessionStorage.getItem("skiff.session"));
	const other = await TestClient.connect(chat.service.skiff.wsUrl);
	try {
		gate.holdEventsFrom = (event) => event.type === "agent_start";
		const reply = heldReply();
		const from = other.events.length;
		await other.ok({ type: "prompt", sessionId, message: reply.prompt });
		await until(() => gate.holding > 0);
		assert.equal(await page.getAttribute(".app", "data-run"), "idle", "the page has not heard of the run");

		await typeAndSend(page, "REPLY steered across the edge");
		await until(() => gate.commands.includes("steer"));
		// The run goes on until the service has queued the steer.
		await other.waitForEvent((e) => e.type === "queue_update" && e.sessionId === sessionId && e.steering.length === 1, 15_000, from);
		reply.release();
		gate.release();
		await page.waitForSelector(".msg.assistant:has-text('steered across the edge')");
		await page.waitForSelector(".app[data-run='idle']");
		assert.equal(await page.locator(".msg.user", { hasText: "steered across the edge" }).count(), 1);
		assert.equal(await page.locator(".toast").count(), 0);
	} finally {
		other.close();
		await page.context().close();
	}
});
