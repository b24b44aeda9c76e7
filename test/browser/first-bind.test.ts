/**
 * The page's first bind (docs/web.md, Connection): it follows the session and asks for its newest messages, its
 * state and the model lists in one flight, without losing or repeating an event of a reply that streams
 * meanwhile; a remembered session that is gone gives way to the primary.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { type ChatService, launchBrowser, openPage, startChatService, typeAndSend, VIEWPORTS } from "../support/browser.js";
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

const desktop = VIEWPORTS[0];

/** Each WebSocket frame of the page, in order: what it sent (a command's type) and what it received (a response's command). */
function recordFrames(page: Page): string[] {
	const frames: string[] = [];
	page.on("websocket", (socket) => {
		socket.on("framesent", ({ payload }) => frames.push(`sent ${JSON.parse(String(payload)).type}`));
		socket.on("framereceived", ({ payload }) => {
			const message = JSON.parse(String(payload)) as { type: string; command?: string };
			if (message.type === "response") frames.push(`answered ${message.command}`);
		});
	});
	return frames;
}

test("the first bind sends subscribe, the snapshot and the model lists in one flight, and a reply streaming meanwhile arrives whole, once", async () => {
	const writer = await openPage(browser, service.skiff.url, desktop);
	try {
		const words = Array.from({ length: 120 }, (_, i) => `w${i}`);
		await typeAndSend(writer, `REPLY ${words.join(" ")}\nCHUNKS 3 5\nSLOW 4`);
		await writer.waitForSelector(".msg.assistant.streaming");
		// A second page opens while the reply streams: its first bind meets events on their way.
		const context = await browser.newContext({ viewport: { width: desktop.width, height: desktop.height } });
		const page = await context.newPage();
		const frames = recordFrames(page);
		await page.goto(`${service.skiff.url}/web`);
		await page.waitForSelector('.pill[data-status="connected"]');
		const answered = frames.indexOf("answered subscribe");
		assert.ok(answered > 0, frames.join(", "));
		for (const command of ["get_messages", "get_state", "get_available_models", "get_available_thinking_levels"]) {
			const sent = frames.indexOf(`sent ${command}`);
			assert.ok(sent >= 0 && sent < answered, `${command} is sent before subscribe is answered: ${frames.join(", ")}`);
		}
		await writer.waitForSelector(".app[data-run='idle']");
		await page.waitForSelector(".app[data-run='idle']");
		const reply = await page.locator(".msg.assistant").last().innerText();
		assert.equal(reply.trim(), words.join(" "), "every word once, in order");
		await context.close();
	} finally {
		await writer.context().close();
	}
});

test("a remembered session that is gone gives way to the primary, without an error", async () => {
	const page = await openPage(browser, service.skiff.url, desktop, {
		connected: false,
		before: async (p) => {
			await p.addInitScript(() => sessionStorage.setItem("skiff.session", "00000000-0000-4000-8000-000000000000"));
		},
	});
	const client = await TestClient.connect(service.skiff.wsUrl);
	try {
		await page.waitForSelector('.pill[data-status="connected"]');
		const { sessionId: primary } = await client.ok({ type: "get_state" });
		assert.equal(await page.evaluate(() => sessionStorage.getItem("skiff.session")), primary, "bound to the primary");
		assert.equal(await page.locator(".toast").count(), 0, "no error toast");
		await page.waitForSelector(".transcript-content");
	} finally {
		client.close();
		await page.context().close();
	}
});
