/**
 * The Jobs panel at both sizes: the agent catalog (a broken definition shown with its error), spawning a job,
 * its row moving from running to finished, and its detail with the child's transcript, output and cancel.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { openPage, showPanel, useChatService, VIEWPORTS } from "../support/browser.js";
import { ReplyGate } from "../support/reply-gate.js";
import { tempDir } from "../support/skiff-process.js";

const chat = useChatService(() => {
	const agentDir = tempDir();
	mkdirSync(join(agentDir, "agents"));
	writeFileSync(join(agentDir, "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews changes\n---\nReview.\n");
	writeFileSync(join(agentDir, "agents", "broken.md"), "---\nname: broken\n---\nno description\n");
	return { agentDir, onModelRequest: () => gate.held };
});
const gate = new ReplyGate();

for (const viewport of VIEWPORTS) {
	describe(`jobs panel at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		test("spawn a job, watch it finish, open its transcript and output", async () => {
			const page = await openPage(chat.browser, chat.service.skiff.url, viewport);
			try {
				await showPanel(page, viewport, "jobs");
				const panel = page.locator("#panel-jobs");
				await panel.locator("select[name='agent'] option:has-text('reviewer')").waitFor({ state: "attached" });
				assert.match((await panel.locator(".job-broken").textContent())!, /broken\.md: description is required/);
				assert.match((await panel.textContent())!, /No job is running/);
				await panel.locator("select[name='agent']").selectOption("reviewer");
				// Each size's job says its own words: the service is shared, so the list also holds the jobs of the size before.
				const words = `review done at ${viewport.name} size: all good`;
				await panel.locator("textarea[name='task']").fill(`CALL yield {"text":"${words}"}`);
				await panel.locator("button[type='submit']").click();
				const row = panel.locator(".job-list li[data-status='completed']", { hasText: words });
				await row.waitFor();
				assert.match((await row.textContent())!, /reviewer/);
				await row.locator("button").click();
				await panel.locator(".job-output", { hasText: words }).waitFor();
				await panel.locator(".job-transcript .tool-name:has-text('yield')").first().waitFor();
				assert.equal(await panel.locator("button:has-text('Cancel job')").count(), 0, "a finished job cannot be cancelled");
				await panel.locator("button:has-text('Back')").click();
				await panel.locator("textarea[name='task']").waitFor();
			} finally {
				await page.context().close();
			}
		});

		test("a running job streams in its detail and can be cancelled", async () => {
			const page = await openPage(chat.browser, chat.service.skiff.url, viewport);
			const release = gate.hold();
			try {
				await showPanel(page, viewport, "jobs");
				const panel = page.locator("#panel-jobs");
				await panel.locator("textarea[name='task']").fill("REPLY still thinking");
				await panel.locator("button[type='submit']").click();
				const row = panel.locator(".job-list li[data-status='running']");
				await row.waitFor();
				await row.locator("button").click();
				await panel.locator(".job-transcript").waitFor();
				// The model's reply is held until the end: cancelling stops the child while it waits for it, so the job
				// cannot finish first whatever the machine's speed.
				await panel.locator("button:has-text('Cancel job')").click();
				await panel.locator(".job-status.cancelled").waitFor();
			} finally {
				release();
				await page.context().close();
			}
		});
	});
}
