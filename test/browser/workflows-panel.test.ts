/**
 * The Workflows panel at both sizes, against the fake model in a temporary git repository: the empty state,
 * creating a workflow from the form, following it live (no reload) from running to completed with its plan,
 * workers and integration summary, only the actions its state allows offered, and removing it.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { openPage, runPrompt, showPanel, useChatService, VIEWPORTS } from "../support/browser.js";
import type { RecordedRequest } from "../support/fake-openai.js";
import { tempDir } from "../support/skiff-process.js";

let repo: string;
/** While set, the fake model holds the workers' replies until it settles. */
let gate: Promise<void> | undefined;

/** A request of one of a workflow's task jobs (their system prompt says so). */
const isWorker = (request: RecordedRequest) => JSON.stringify(request.body.messages[0]).includes("one task of a workflow");

const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", ...args], { cwd: repo, encoding: "utf8" });

/** A task line that makes the worker write a file. */
const writes = (path: string, content: string) => `CALL write ${JSON.stringify({ path, content })}`;
/** An objective that makes the supervisor plan these phases. */
const objective = (list: unknown) => `Do the work.\nCALL todo ${JSON.stringify({ op: "init", list })}\nAFTER_TOOL Planned.`;

const chat = useChatService(() => {
	repo = tempDir("skiff-wf-web-");
	git("init", "-q", "-b", "main");
	writeFileSync(join(repo, "a.txt"), "one\n");
	git("add", "-A");
	git("commit", "-q", "-m", "first");
	return { cwd: repo, onModelRequest: (request) => (gate && isWorker(request) ? gate : undefined) };
});

for (const viewport of VIEWPORTS) {
	describe(`workflows panel at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		test("create a workflow, follow it live to completed with its integration summary, then remove it", async () => {
			const page = await openPage(chat.browser, chat.service.skiff.url, viewport);
			let release!: () => void;
			gate = new Promise((resolve) => (release = resolve));
			try {
				await runPrompt(page, "REPLY ready"); // the session is recorded from its first message
				await showPanel(page, viewport, "workflows");
				const panel = page.locator("#panel-workflows");
				await panel.locator(".empty-state:has-text('No workflow yet')").waitFor();
				assert.match((await panel.textContent())!, /supervisor agent plans it/);

				// A name the backend would refuse is caught in the form.
				await panel.locator("input[name='name']").fill("../bad");
				await panel.locator(".workflow-error").waitFor();
				assert.ok(await panel.locator("button[type='submit']").isDisabled());

				const first = `${viewport.name}-one.txt`;
				const second = `${viewport.name}-two.txt`;
				const list = [{ phase: "Build", items: [writes(first, "one\n"), { content: writes(second, "two\n"), dependsOn: [writes(first, "one\n")] }] }];
				await panel.locator("input[name='name']").fill(`web ${viewport.name}`);
				await panel.locator("textarea[name='objective']").fill(objective(list));
				await panel.locator("button[type='submit']").click();

				// The detail opens and follows the workflow: running, its first worker held by the model.
				await panel.locator("h2:has-text('web')").waitFor();
				await panel.locator(".workflow-summary .workflow-status.running").waitFor();
				await panel.locator(".workflow-workers li").first().waitFor();
				assert.match((await panel.locator(".workflow-workers").textContent())!, /t1: CALL write/);
				assert.match((await panel.locator(".workflow-plan").textContent())!, /Build.*t1.*t2.*Waits for t1/s);
				assert.match((await panel.locator(".workflow-supervisor").textContent())!, /completed.*plan made/);
				// Only what a running workflow allows is offered.
				assert.deepEqual(await actions(page), ["pause", "cancel"]);

				release();
				gate = undefined;
				await panel.locator(".workflow-summary .workflow-status.completed").waitFor();
				assert.match((await panel.locator(".workflow-summary").textContent())!, /2\/2 tasks done/);
				const summary = (await panel.locator(".workflow-integration").textContent())!;
				assert.match(summary, /fast-forward/);
				assert.match(summary, /2 files changed/);
				assert.match(summary, /\+2/);
				assert.match(summary, new RegExp(first.replace(".", "\\.")));
				assert.equal(await panel.locator(".workflow-conflicts").count(), 0);
				assert.equal(readFileSync(join(repo, second), "utf8"), "two\n", "the base checkout took the work");
				// A completed workflow can only be removed: pause, resume, integrate and cancel are not offered.
				assert.deepEqual(await actions(page), ["remove"]);

				// Back in the list, its row shows the status and progress.
				await panel.locator("button:has-text('Back')").click();
				const row = panel.locator(".workflow-list li[data-status='completed']", { hasText: `web ${viewport.name}` });
				assert.match((await row.textContent())!, /2\/2 tasks done/);

				// Remove asks once more before it deletes.
				await row.locator("button").click();
				await panel.locator("button[data-action='remove']").click();
				await panel.locator("button:has-text('Confirm remove')").click();
				await panel.locator("input[name='name']").waitFor();
				await row.waitFor({ state: "detached" });
			} finally {
				gate = undefined;
				release?.();
				await page.context().close();
			}
		});
	});
}

/** The actions the open workflow offers, in order. */
function actions(page: import("playwright-core").Page): Promise<string[]> {
	return page.locator("#panel-workflows .panel-actions button[data-action]").evaluateAll((buttons) => buttons.map((b) => b.getAttribute("data-action")!));
}
