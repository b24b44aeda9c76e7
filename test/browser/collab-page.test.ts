/**
 * Sharing from the page, with two real browser contexts on the real skiff and the fake model: the host's Share
 * dialog (start, links, who is connected, stop) and the guest view at a collaboration link (role, connection,
 * the live transcript, a control guest's composer, none for a view guest, a clear end when the host stops, a
 * clear error for a bad link), at desktop and phone sizes.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { type ChatService, launchBrowser, openPage, startChatService, typeAndSend, VIEWPORTS, type Viewport } from "../support/browser.js";
import { TestClient } from "../support/ws-client.js";

const DESKTOP = VIEWPORTS[0];

let browser: Browser;
let service: ChatService;

before(async () => {
	[browser, service] = await Promise.all([launchBrowser(), startChatService()]);
});

// A test that failed half-way leaves no room behind for the next one (which expects to start sharing).
afterEach(async () => {
	const client = await TestClient.connect(service.skiff.wsUrl);
	try {
		const { rooms } = await client.ok({ type: "collab_status" });
		for (const room of rooms) await client.ok({ type: "collab_stop", roomId: room.roomId });
	} finally {
		client.close();
	}
});

after(async () => {
	await browser?.close();
	await service?.close();
});

/** The host's page with the Share dialog open on a new room; answers its two links. */
async function startSharing(host: Page): Promise<{ control: string; view: string }> {
	await host.click("button.share-button");
	await host.click("dialog.share button:has-text('Start sharing')");
	await host.waitForSelector("dialog.share #share-control");
	return { control: await host.inputValue("#share-control"), view: await host.inputValue("#share-view") };
}

/** A guest's page in a browser context of its own, at `viewport`, with the URLs of every socket it opens. */
async function openGuest(link: string, viewport: Viewport): Promise<{ page: Page; sockets: string[] }> {
	const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height }, hasTouch: viewport.phone, isMobile: viewport.phone });
	const page = await context.newPage();
	const sockets: string[] = [];
	page.on("websocket", (ws) => sockets.push(ws.url()));
	await page.goto(link);
	return { page, sockets };
}

/** The text of the host dialog's count of guests with `role`. */
function guestCount(host: Page, role: "control" | "view"): Promise<string> {
	return host.locator(`dialog.share .share-count li[data-role='${role}'] strong`).innerText();
}

/** Nothing sticks out sideways: the page fits the phone's width. */
async function fitsWidth(page: Page): Promise<boolean> {
	return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

for (const viewport of VIEWPORTS) {
	test(`a control guest follows the host's streaming run, prompts, steers and aborts (${viewport.name})`, async () => {
		const host = await openPage(browser, service.skiff.url, DESKTOP);
		const links = await startSharing(host);
		assert.match(links.control, /\/collab\/ws\/[\w-]{22}#c=[\w-]{43}$/);
		assert.match(links.view, /\/collab\/ws\/[\w-]{22}#v=[\w-]{43}$/);
		assert.match(await host.locator("dialog.share .share-link.control .hint").innerText(), /send prompts, steer and stop the run/);
		assert.match(await host.locator("dialog.share .share-link.view .hint").innerText(), /only watch/);
		await host.waitForSelector("dialog.share .share-count:has-text('No one has joined yet')");

		const { page: guest, sockets } = await openGuest(links.control, viewport);
		try {
			await guest.waitForSelector(".guest .pill[data-status='connected']");
			await roleBadgeSays(guest, viewport, "can control");
			assert.ok(!guest.url().includes("#"), "the key is gone from the address bar");
			// The host sees the guest join, live.
			await host.waitForFunction(() => document.querySelector("dialog.share .share-count li[data-role='control'] strong")?.textContent === "1");
			assert.equal(await guestCount(host, "view"), "0");
			assert.equal(await host.locator("button.share-button .count").innerText(), "1");
			await host.keyboard.press("Escape");

			// The host's run streams to the guest: a part of the reply shows before the whole (its last word is held
			// back by the model until the guest has seen the rest, so the stream lasts as long as the check needs).
			const words = Array.from({ length: 16 }, (_, i) => `w${i}`).join(" ");
			const hold = `guest-stream-${viewport.name}`;
			await typeAndSend(host, `Stream this to the guest (${viewport.name}).\nREPLY streamed ${words} done\nHOLD ${hold}`);
			await guest.waitForSelector(".guest[data-run='running']");
			await guest.waitForSelector(".msg.assistant.streaming:has-text('streamed w0 w1 w2')");
			assert.equal(await guest.locator(".msg.assistant.streaming").innerText().then((t) => t.includes("done")), false, "seen while it streams");
			service.model.release(hold);
			await guest.waitForSelector(`.msg.assistant:not(.streaming):has-text('${words} done')`);
			await guest.waitForSelector(".guest[data-run='idle']");
			assert.equal(await guest.locator(`.msg.user:has-text('Stream this to the guest (${viewport.name})')`).count(), 1);

			// The guest prompts; the host's page shows it and the reply.
			await typeAndSend(guest, `REPLY hello host, from a ${viewport.name} guest`);
			await host.waitForSelector(`.msg.user:has-text('from a ${viewport.name} guest')`);
			await host.waitForSelector(`.msg.assistant:has-text('hello host, from a ${viewport.name} guest')`);
			await guest.waitForSelector(`.msg.assistant:has-text('hello host, from a ${viewport.name} guest')`);
			// The reply's text can show before its run's end reaches the guest: Enter then steers the ending run.
			await guest.waitForSelector(".guest[data-run='idle']");

			// During a run the guest's Enter steers, and its Abort stops the host's run.
			await typeAndSend(guest, "A long one.\nREPLY a b c d e f g h i j k l m n o p q r s t u v w x y z\nHOLD until-stopped"); // ended by the guest's Abort below
			await guest.waitForSelector(".msg.assistant.streaming:has-text('a b')");
			await guest.waitForSelector("button.send:has-text('Steer')");
			await typeAndSend(guest, `steered by the ${viewport.name} guest`);
			await host.waitForSelector(`.msg.pending:has-text('steered by the ${viewport.name} guest')`);
			await guest.click("button.abort");
			await host.waitForSelector(".app[data-run='idle']");
			await guest.waitForSelector(".guest[data-run='idle']");

			if (viewport.phone) {
				assert.ok(await fitsWidth(guest), "the guest view fits a phone");
				assert.ok(await guest.locator("#composer").isVisible());
				assert.ok(await guest.locator(".guest-role").isVisible());
			}
			assert.ok(sockets.length > 0 && sockets.every((url) => /\/collab\/ws\/[\w-]{22}$/.test(url)), "the guest opens only its room's socket");
			assert.equal(await guest.locator("input[aria-label='Access token'], .panels, .panel-toggle, .share-button, .fork").count(), 0, "no token, panels or host controls");
		} finally {
			await guest.context().close();
		}
		// The guest left: the host's count says so.
		await host.click("button.share-button");
		await host.waitForSelector("dialog.share .share-count:has-text('No one has joined yet')");
		await host.click("dialog.share button:has-text('Stop sharing')");
		await host.waitForSelector("dialog.share button:has-text('Start sharing')");
		await host.context().close();
	});

	test(`a view guest watches without a composer, and is told when the host stops sharing (${viewport.name})`, async () => {
		const host = await openPage(browser, service.skiff.url, DESKTOP);
		const links = await startSharing(host);
		const { page: guest } = await openGuest(links.view, viewport);
		try {
			await guest.waitForSelector(".guest .pill[data-status='connected']");
			await roleBadgeSays(guest, viewport, "view only");
			assert.equal(await guest.locator("#composer").count(), 0, "no composer");
			assert.match(await guest.locator(".guest-footer").innerText(), /watching/);
			await host.waitForFunction(() => document.querySelector("dialog.share .share-count li[data-role='view'] strong")?.textContent === "1");
			assert.equal(await guestCount(host, "control"), "0");

			await host.keyboard.press("Escape");
			await typeAndSend(host, `REPLY watched by a ${viewport.name} viewer`);
			await guest.waitForSelector(`.msg.assistant:has-text('watched by a ${viewport.name} viewer')`);
			if (viewport.phone) assert.ok(await fitsWidth(guest), "the guest view fits a phone");

			await host.click("button.share-button");
			await host.click("dialog.share button:has-text('Stop sharing')");
			await host.waitForSelector("dialog.share button:has-text('Start sharing')");
			await guest.waitForSelector(".guest[data-status='ended']");
			assert.match(await guest.locator(".connection").innerText(), /The host stopped sharing this session\./);
			assert.equal(await guest.locator(".guest-footer, #composer").count(), 0);
			assert.equal(await guest.locator(`.msg.assistant:has-text('watched by a ${viewport.name} viewer')`).count(), 1, "what was seen stays");
			assert.equal(await host.locator("button.share-button .count").count(), 0, "the header no longer says shared");
		} finally {
			await guest.context().close();
			await host.context().close();
		}
	});

	test(`a link without its key, or with a damaged one, shows a clear error and connects nowhere (${viewport.name})`, async () => {
		const room = "A".repeat(22);
		const cases = [
			{ link: `${service.skiff.url}/collab/ws/${room}`, says: /has no key/ },
			{ link: `${service.skiff.url}/collab/ws/${room}#c=short`, says: /key is damaged/ },
		];
		for (const { link, says } of cases) {
			const { page, sockets } = await openGuest(link, viewport);
			try {
				await page.waitForSelector(".guest-card h2:has-text('This link cannot be opened')");
				assert.match(await page.locator(".guest-card").innerText(), says);
				assert.deepEqual(sockets, [], "nothing is sent");
				assert.equal(await page.locator(".guest-role").innerText(), "Guest");
				assert.equal(await page.locator("#composer, .pill, input[aria-label='Access token'], .panels").count(), 0);
				if (viewport.phone) assert.ok(await fitsWidth(page));
			} finally {
				await page.context().close();
			}
		}
		// A well-formed link to no room: the socket is refused, and the page says so.
		const { page } = await openGuest(`${service.skiff.url}/collab/ws/${room}#v=${"A".repeat(43)}`, viewport);
		try {
			await page.waitForSelector(".guest[data-status='failed'] .guest-card");
			assert.match(await page.locator(".guest-card").innerText(), /Could not join: the link is not valid, the room has ended, or the host cannot be reached\./);
		} finally {
			await page.context().close();
		}
	});
}

test("the Share dialog's Copy puts the link on the clipboard", async () => {
	const host = await openPage(browser, service.skiff.url, DESKTOP);
	try {
		await host.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: service.skiff.url });
		const links = await startSharing(host);
		await host.click("dialog.share button[aria-label='Copy the view link']");
		await host.waitForSelector("dialog.share .share-link.view .copy:has-text('Copied')");
		assert.equal(await host.evaluate(() => navigator.clipboard.readText()), links.view);
		await host.click("dialog.share button[aria-label='Copy the control link']");
		await host.waitForFunction((control) => navigator.clipboard.readText().then((text) => text === control), links.control);
		await host.click("dialog.share button:has-text('Stop sharing')");
		await host.waitForSelector("dialog.share button:has-text('Start sharing')");
	} finally {
		await host.context().close();
	}
});

/** The guest's badge: "Guest · <role>" on a desktop; on a phone only "Guest" shows, the role is still read out. */
async function roleBadgeSays(guest: Page, viewport: Viewport, role: string): Promise<void> {
	const badge = guest.locator(".guest-role");
	assert.equal(await badge.textContent(), `Guest · ${role}`);
	assert.equal(await badge.getAttribute("title"), `Guest · ${role}`);
	const shown = await badge.locator(".role").boundingBox();
	assert.equal(viewport.phone ? shown!.width <= 1 : shown!.width > 20, true, viewport.phone ? "the role gives its room to the title" : "the role shows");
}
