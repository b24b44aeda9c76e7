/**
 * A message sent as a run ends or begins, before the page has heard so, is still delivered: the service refuses
 * a steer with no run (or a prompt during one) and the page sends it once the other way, without a word to the
 * user. The page's view is held back by delaying the events it receives (responses pass) from a chosen event on.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page, WebSocketRoute } from "playwright-core";
import { type ChatService, launchBrowser, newSession, openPage, startChatService, typeAndSend, VIEWPORTS } from "../support/browser.js";
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

/**
 * Passes the page's WebSocket traffic through; once `holdFrom` matches an event, that event and every later one
 * wait (responses to the page's commands still pass) until `release`, which sends them in order.
 */
class EventGate {
	holdFrom: ((event: { type: string }) => boolean) | undefined;
	private held: string[] | undefined;
	private page: WebSocketRoute | undefined;
	readonly commands: string[] = [];

	route(ws: WebSocketRoute): void {
		const server = ws.connectToServer();
		this.page = ws;
		ws.onMessage((message) => {
			this.commands.push(JSON.parse(String(message)).type);
			server.send(message);
		});
		server.onMessage((message) => {
			const parsed = JSON.parse(String(message)) as { type: string };
			if (!this.held && parsed.type !== "response" && this.holdFrom?.(parsed)) this.held = [];
			if (this.held && parsed.type !== "response") this.held.push(String(message));
			else ws.send(message);
		});
	}

	get holding(): number {
		return this.held?.length ?? 0;
	}

	release(): void {
		for (const message of this.held ?? []) this.page!.send(message);
		this.held = undefined;
		this.holdFrom = undefined;
	}
}

async function gatedPage(): Promise<{ page: Page; gate: EventGate }> {
	const gate = new EventGate();
	const page = await openPage(browser, service.skiff.url, VIEWPORTS[0], { before: (p) => p.routeWebSocket(/\/ws(\?|$)/, (ws) => gate.route(ws)) });
	await newSession(page, VIEWPORTS[0]);
	return { page, gate };
}

async function until(condition: () => boolean): Promise<void> {
	for (const deadline = Date.now() + 10_000; !condition(); ) {
		if (Date.now() > deadline) throw new Error("timed out");
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

test("Enter after the run ended, before the page heard it: the steer is refused and sent as a prompt", async () => {
	const { page, gate } = await gatedPage();
	try {
		gate.holdFrom = (event) => event.type === "agent_end";
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
		gate.holdFrom = (event) => event.type === "agent_start";
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
