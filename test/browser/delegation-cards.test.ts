/**
 * Delegation cards at both sizes: a `task` call in the transcript is drawn as a card naming the agent and the
 * task, its job's status follows job_updated live (running, then completed), and the card opens the job in the
 * Jobs panel's detail view; a batch is one card with a row per job.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { allStarted, type ChatService, launchBrowser, newSession, openPage, startChatService, typeAndSend, VIEWPORTS } from "../support/browser.js";
import { tempDir } from "../support/skiff-process.js";

let browser: Browser;
let service: ChatService;
/** While set, the fake model holds its replies to a child whose task says HOLD until it settles. */
let gate: Promise<void> | undefined;

const call = (tool: string, args: unknown) => `CALL ${tool} ${JSON.stringify(args)}`;

before(async () => {
	const agentDir = tempDir();
	mkdirSync(join(agentDir, "agents"));
	writeFileSync(join(agentDir, "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews changes\n---\nReview.\n");
	const serviceStarted = startChatService({
		agentDir,
		onModelRequest: (request) => {
			const text = JSON.stringify(request.body.messages);
			return text.includes("HOLD") && !text.includes("CALL task") ? gate : undefined; // the child's requests, not its parent's
		},
	});
	await allStarted([launchBrowser().then((b) => (browser = b)), serviceStarted.then((s) => (service = s))]);
});

after(async () => {
	await browser?.close();
	await service?.close();
});

for (const viewport of VIEWPORTS) {
	describe(`delegation cards at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		test("a task call is a card with the job's live status that opens the job", async () => {
			const page = await openPage(browser, service.skiff.url, viewport);
			let release!: () => void;
			gate = new Promise((resolve) => (release = resolve));
			try {
				await newSession(page, viewport);
				const child = `HOLD\n${call("yield", { text: "reviewed: no problems" })}`;
				await typeAndSend(page, call("task", { task: child, agent: "reviewer", description: "review the change" }));
				const card = page.locator(".transcript .tool.delegation");
				await card.locator(".job-status.running").waitFor();
				assert.match((await card.locator(".tool-name").textContent())!, /Delegated to reviewer/);
				assert.match((await card.textContent())!, /review the change/);
				release();
				gate = undefined;
				await card.locator(".job-status.completed").waitFor();
				assert.match((await card.locator(".delegation-meta").textContent())!, /\d+s/, "the elapsed time is shown");

				await card.locator("button.delegation-open").click();
				if (viewport.phone) await page.waitForSelector(".app.panel-open aside.panels:not([inert])");
				const jobs = page.locator("#panel-jobs");
				assert.equal(await page.locator("#tab-jobs").getAttribute("aria-selected"), "true");
				await jobs.locator(".job-output:has-text('reviewed: no problems')").waitFor();
				assert.match((await jobs.locator(".panel-header h2").textContent())!, /^Job job-/);
				await jobs.locator("button:has-text('Back')").click();
			} finally {
				gate = undefined;
				release?.();
				await page.context().close();
			}
		});

		test("a job's result is a readable card linked to its job, saying that it woke the agent and why", async () => {
			const page = await openPage(browser, service.skiff.url, viewport);
			try {
				await newSession(page, viewport);
				await typeAndSend(page, call("task", { task: call("yield", { text: "all checks passed" }), agent: "reviewer", description: "check the build" }));
				const card = page.locator(".transcript .job-result").first();
				await card.locator(".job-woke").waitFor();
				await page.waitForSelector(".app[data-run='idle']");
				assert.equal(await card.locator(".tool-name").textContent(), "reviewer finished");
				assert.match((await card.locator(".delegation-summary").textContent())!, /^check the build$/);
				assert.equal(await card.locator(".job-result-text").textContent(), "all checks passed");
				assert.match((await card.locator(".job-woke").textContent())!, /idle when this job finished, so it was woken to read the result/);
				assert.doesNotMatch((await card.textContent())!, /job-[0-9a-f]{6}/, "no raw job id to read");
				assert.equal(await card.locator("button.delegation-open").getAttribute("aria-label"), "Open in Jobs: reviewer, check the build (completed)", "nor to hear");
				// The agent's reply to it follows the card.
				assert.equal(await card.evaluate((el) => el.nextElementSibling?.classList.contains("assistant")), true);

				// A child that never yields: its last reply is the result, said so in words rather than a bracketed note.
				await typeAndSend(page, call("task", { task: "REPLY the last words", description: "just talk" }));
				const quiet = page.locator(".transcript .job-result").nth(1);
				await quiet.locator(".job-result-text").waitFor();
				await page.waitForSelector(".app[data-run='idle']");
				assert.equal(await quiet.locator(".job-result-text").textContent(), "the last words");
				assert.match((await quiet.locator(".job-result-note").textContent())!, /ended without calling yield/);
				assert.doesNotMatch((await quiet.textContent())!, /\[The job ended/);

				await card.locator("button.delegation-open").click();
				if (viewport.phone) await page.waitForSelector(".app.panel-open aside.panels:not([inert])");
				await page.locator("#panel-jobs .job-output:has-text('all checks passed')").waitFor();
			} finally {
				await page.context().close();
			}
		});

		test("a batch is one card with a row per job", async () => {
			const page = await openPage(browser, service.skiff.url, viewport);
			try {
				await newSession(page, viewport);
				const tasks = [
					{ task: call("yield", { text: "first done" }), description: "first part" },
					{ task: call("yield", { text: "second done" }), agent: "reviewer", description: "second part" },
				];
				await typeAndSend(page, call("task", { context: "shared", tasks }));
				const card = page.locator(".transcript .tool.delegation");
				await card.locator("li[data-status='completed']").nth(1).waitFor();
				assert.match((await card.locator(".tool-name").textContent())!, /Delegated 2 tasks/);
				const rows = card.locator("li");
				assert.equal(await rows.count(), 2);
				assert.match((await rows.nth(0).textContent())!, /task.*first part/);
				assert.match((await rows.nth(1).textContent())!, /reviewer.*second part/);
			} finally {
				await page.context().close();
			}
		});
	});
}
