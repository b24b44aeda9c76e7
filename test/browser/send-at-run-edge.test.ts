/**
 * A message sent as a run ends or begins, before the page has heard so, is still delivered: the service refuses
 * a steer with no run (or a prompt during one) and the page sends it once the other way, without a word to the
 * user. The page's view is held back by delaying the events it receives (answers pass) from a chosen event on.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { type ChatService, launchBrowser, newSession, openPage, startChatService, typeAndSend, VIEWPORTS } from "../support/browser.js";
import { SocketGate } from "../support/socket-gate.js";
import { until } from "../support/until.js";
import { TestClient } from "../support/ws-client.js";

let browser: Browser;
let service: ChatService;

before(async () => {
	browser = await launchBrowser();
	service = await startChatService();
});

after(async () => {
	await browser?.close();
	await service?.close();
});

async function gatedPage(): Promise<{ page: Page; gate: SocketGate }> {
	const gate = new SocketGate();
	const page = await openPage(browser, service.skiff.url, VIEWPORTS[0], { before: (p) => gate.attach(p) });
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
	const other = await TestClient.connect(service.skiff.wsUrl);
	try {
		gate.holdEventsFrom = (event) => event.type === "agent_start";
		await other.ok({ type: "prompt", sessionId, message: `REPLY ${Array.from({ length: 20 }, (_, i) => `w${i}`).join(" ")}\nSLOW 100` });
		await until(() => gate.holding > 0);
		assert.equal(await page.getAttribute(".app", "data-run"), "idle", "the page has not heard of the run");

		await typeAndSend(page, "REPLY steered across the edge");
		await until(() => gate.commands.includes("steer"));
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
