/** Connecting with a token, reconnecting with backoff, and rebinding after a listener restart. */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../support/browser.js";
import { startFakeOpenAi, writeFakeModelsJson, type FakeOpenAiServer } from "../support/fake-openai.js";
import { startSkiff, tempDir } from "../support/skiff-process.js";

let browser: Browser;
let model: FakeOpenAiServer;

before(async () => {
	browser = await launchBrowser();
	model = await startFakeOpenAi();
});

after(async () => {
	await browser?.close();
	await model?.close();
});

function freePort(): Promise<number> {
	return new Promise((resolve) => {
		const server = createServer();
		server.listen(0, "127.0.0.1", () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

test("a token is typed, sent only as the subprotocol, and kept in sessionStorage only", async () => {
	const dir = tempDir();
	const token = "correct-horse-battery";
	writeFileSync(join(dir, "token"), token, { mode: 0o600 });
	const skiff = await startSkiff({ agentDir: tempDir(), args: ["--listen-token-file", join(dir, "token")] });
	const page = await browser.newPage();
	const sockets: string[] = [];
	page.on("websocket", (ws) => sockets.push(ws.url()));
	try {
		await page.goto(`${skiff.url}/web`);
		await page.waitForSelector('.pill[data-status="offline"]');
		assert.match((await page.textContent(".connection .detail"))!, /token/);

		await page.fill("input[aria-label='Access token']", "wrong-token");
		await page.click("button:has-text('Connect')");
		await page.waitForSelector('.pill[data-status="offline"]');
		await page.waitForTimeout(300);
		assert.equal(await page.textContent(".pill"), "offline", "a wrong token is refused");

		await page.fill("input[aria-label='Access token']", token);
		await page.click("button:has-text('Connect')");
		await page.waitForSelector('.pill[data-status="connected"]');

		assert.ok(!page.url().includes(token), "not in the page URL");
		assert.ok(sockets.every((url) => !url.includes(token)), "not in any WebSocket URL");
		assert.equal(await page.evaluate(() => document.cookie), "");
		assert.equal(await page.evaluate(() => localStorage.length), 0);
		assert.equal(await page.evaluate(() => sessionStorage.getItem("skiff.token")), token);
		assert.equal((await page.context().cookies()).length, 0);
	} finally {
		await page.close();
		await skiff.stop();
	}
});

test("after a listener restart mid-stream the page backs off, rebinds, and shows the transcript once", async () => {
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	const cwd = tempDir();
	const port = await freePort();
	const listen = `127.0.0.1:${port}`;
	const args = ["--model", "fake/fake-model", "--session-id", "restart-ui"];
	let skiff = await startSkiff({ agentDir, cwd, listen, args });
	const page = await browser.newPage();
	const attempts: number[] = [];
	page.on("websocket", () => attempts.push(Date.now()));
	try {
		await page.goto(`${skiff.url}/web`);
		await page.waitForSelector('.pill[data-status="connected"]');
		await page.fill("textarea", "REPLY first finished reply");
		await page.keyboard.press("Enter");
		await page.waitForSelector(".msg.assistant:has-text('first finished reply')");

		await page.fill("textarea", "REPLY one two three four five six seven eight nine ten\nSLOW 300");
		await page.keyboard.press("Enter");
		await page.waitForSelector(".msg.assistant.streaming:has-text('two')");
		assert.equal(await skiff.stop("SIGTERM"), 0);
		await page.waitForSelector('.pill[data-status="reconnecting"]');
		assert.ok((await page.locator(".toast").count()) > 0, "the lost connection is reported");

		// Let the page retry against nothing for a while, then bring the listener back on the same port.
		const stoppedAt = Date.now();
		await page.waitForTimeout(7_800);
		skiff = await startSkiff({ agentDir, cwd, listen, args });
		await page.waitForSelector('.pill[data-status="connected"]', { timeout: 20_000 });

		const retries = attempts.filter((t) => t > stoppedAt);
		const gaps = retries.map((t, i) => t - (i === 0 ? stoppedAt : retries[i - 1]!));
		// 1 s, 2 s, 4 s (then 8 s, capped at 15 s), allowing for a loaded machine.
		assert.ok(gaps.length >= 3, `retries: ${gaps.join(", ")}`);
		for (const [i, expected] of [1000, 2000, 4000].entries()) {
			assert.ok(gaps[i]! >= expected - 150 && gaps[i]! <= expected + 1500, `gap ${i + 1} was ${gaps[i]} ms, expected about ${expected}`);
		}

		// The rebind read the snapshot: each message once, the interrupted reply kept as stopped.
		await page.waitForSelector(".msg.assistant:has-text('Stopped')");
		assert.equal(await page.locator(".msg.user").count(), 2);
		assert.equal(await page.locator(".msg.assistant").count(), 2);
		assert.equal(await page.locator(".msg.assistant:has-text('first finished reply')").count(), 1);
		assert.equal(await page.locator("button.send").isEnabled(), false, "nothing typed yet");
		await page.fill("textarea", "REPLY after the restart");
		await page.keyboard.press("Enter");
		await page.waitForSelector(".msg.assistant:has-text('after the restart')");
		assert.equal(await page.locator(".msg.user").count(), 3);
	} finally {
		await page.close();
		await skiff.stop();
	}
});
