/**
 * A run that a restart of the service cut off (issue 22, item 16), at both sizes: after the page reconnects to the
 * restarted service, the stopped reply is followed by a mark saying that the service restarted during the run,
 * with Continue, which goes on with a prompt; once the conversation has gone on, Continue is offered no more.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { launchBrowser, openPage, reconnected, typeAndSend, VIEWPORTS } from "../support/browser.js";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { ReplyGate } from "../support/reply-gate.js";
import { portForRestart } from "../support/restart-port.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";

let browser: Browser;
let model: FakeOpenAiServer;
const gate = new ReplyGate();

before(async () => {
	browser = await launchBrowser();
	model = await startFakeOpenAi({ onRequest: () => gate.held });
});

after(async () => {
	await browser?.close();
	await model?.close();
});

for (const viewport of VIEWPORTS) {
	describe(`a run cut off by a restart at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		test("says it was interrupted by a restart and offers Continue", async () => {
			const agentDir = tempDir();
			const cwd = tempDir();
			writeFakeModelsJson(agentDir, model.url);
			const listen = `127.0.0.1:${await portForRestart()}`;
			let skiff: SkiffProcess = await startSkiff({ agentDir, cwd, listen, args: ["--model", "fake/fake-model", "--session-id", `cut-${viewport.name}`] });
			const page = await openPage(browser, skiff.url, viewport);
			const release = gate.hold();
			try {
				await typeAndSend(page, "REPLY this reply never comes");
				await page.waitForSelector(".app[data-run='running']");
				await skiff.stop("SIGTERM");
				release();
				skiff = await startSkiff({ agentDir, cwd, listen, args: ["--model", "fake/fake-model", "--continue"] });
				await reconnected(page);

				const mark = page.locator(".transcript .run-interrupted");
				await mark.waitFor();
				assert.match((await mark.textContent())!, /the service restarted while the agent was working/);
				assert.equal(await mark.evaluate((el) => el.previousElementSibling?.querySelector(".note")?.textContent), "Stopped.", "right under the stopped reply");
				const box = await mark.boundingBox();
				assert.ok(box && box.x >= 0 && box.x + box.width <= viewport.width, "inside the window");

				await mark.locator("button:has-text('Continue')").click();
				await page.waitForSelector(".transcript .msg.user:has-text('Continue where you left off')");
				await page.waitForSelector(".app[data-run='idle']");
				await page.waitForSelector(".transcript .msg.user:has-text('Continue where you left off') ~ .msg.assistant");
				assert.equal(await mark.locator("button").count(), 0, "Continue is offered only while the conversation ends there");
			} finally {
				release();
				await page.context().close();
				await skiff.stop();
			}
		});
	});
}
