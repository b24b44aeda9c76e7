/**
 * The todo panel against the real service and the fake model: the empty plan and its form, tasks added to
 * phases, readiness and blockers, the actions (done, reopen, start, drop, link, unlink) with a refused cycle
 * said inline, changes made by another client shown at once, and a run in which the fake model calls the
 * `todo` tool while the panel follows it live.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { newSession, openPage, showPanel, typeAndSend, useChatService, type Viewport, VIEWPORTS } from "../support/browser.js";
import { ReplyGate } from "../support/reply-gate.js";
import { TestClient } from "../support/ws-client.js";

const chat = useChatService({ onModelRequest: (request) => (request.body?.messages?.at(-1)?.role === "tool" ? afterTool.held : undefined) });
/** While held, the fake model holds its answer to a tool's result: the run goes on meanwhile. */
const afterTool = new ReplyGate();

/** Sends from the message box (on a phone the drawer closes for it), then shows the panel again. */
async function sendAndShow(page: Page, viewport: Viewport, text: string): Promise<void> {
	if (viewport.phone) {
		await page.click("button.panel-close");
		await page.waitForSelector(".app:not(.panel-open)");
	}
	await typeAndSend(page, text);
	await showPanel(page, viewport, "todo");
}

const sessionOf = (page: Page) => page.evaluate(() => sessionStorage.getItem("skiff.session")!);
const row = (page: Page, id: string) => page.locator(`.todo-task[data-id='${id}']`);

/** Waits until task `id` shows `status` (and, when given, `state`: ready, blocked, active, ...). */
async function waitForTask(page: Page, id: string, status: string, state?: string): Promise<void> {
	await page.waitForSelector(`.todo-task[data-id='${id}'][data-status='${status}']${state ? `[data-state='${state}']` : ""}`);
}

for (const viewport of VIEWPORTS) {
	describe(`todo panel at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let page: Page;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport);
			await newSession(page, viewport);
			await showPanel(page, viewport, "todo");
		});
		after(() => page?.context().close());

		test("empty: says so and adds the first task, which starts (the ready pointer)", async () => {
			await page.waitForSelector(".todo .empty-state:has-text('No plan yet')");
			await page.click(".todo-add button[type='submit']");
			await page.waitForSelector("#todo-add-error:has-text('Say what the task is')");
			await page.fill("input[name='todo-content']", "Write the schema");
			assert.equal(await page.inputValue("input[name='todo-new-phase']"), "Tasks", "a first phase name is suggested");
			await page.fill("input[name='todo-new-phase']", "Build");
			await page.click(".todo-add button[type='submit']");
			await waitForTask(page, "t1", "in_progress", "active");
			assert.match((await page.textContent(".todo-phase h3"))!, /Build\s*0\/1/);
			assert.match((await page.textContent(".todo-summary"))!, /0 of 1 done · 1 active/);
		});

		test("a task waiting for another is blocked and says by what; the dependency is shown", async () => {
			await page.click(".todo .panel-actions button:has-text('Add task')");
			await page.waitForFunction(() => document.activeElement?.getAttribute("name") === "todo-content");
			await page.fill("input[name='todo-content']", "Test the schema");
			await page.selectOption("select[name='todo-phase']", { label: "New phase…" });
			await page.fill("input[name='todo-new-phase']", "Check");
			await page.selectOption("select[name='todo-after']", "t1");
			await page.click(".todo-add button[type='submit']");
			await waitForTask(page, "t2", "pending", "blocked");
			assert.match((await row(page, "t2").locator(".todo-blocked").textContent())!, /Waits for t1 “Write the schema” \(in progress\)/);
			assert.equal(await row(page, "t2").locator(".todo-deps .todo-dep").textContent(), "t1");
			assert.equal(await page.locator(".todo-add").count(), 0, "the form closed");
			assert.match((await page.textContent(".todo-summary"))!, /1 blocked/);
		});

		test("the circle completes a task (and the next becomes ready and starts); it reopens a finished one", async () => {
			await row(page, "t1").locator(".todo-status").click();
			await waitForTask(page, "t1", "completed");
			await waitForTask(page, "t2", "in_progress", "active");
			assert.equal(await row(page, "t2").locator(".todo-blocked").count(), 0);
			assert.equal(await row(page, "t1").locator(".todo-status").getAttribute("aria-label"), "Reopen t1");

			await row(page, "t1").locator(".todo-status").click();
			await waitForTask(page, "t1", "in_progress");
			await waitForTask(page, "t2", "pending", "blocked");
		});

		test("a task opens to its actions and links: unlink, link, a refused cycle said inline, drop and reopen", async () => {
			await row(page, "t2").locator(".todo-open").click();
			const detail = page.locator("#todo-detail-t2");
			await detail.waitFor();
			assert.equal(await row(page, "t2").locator(".todo-open").getAttribute("aria-expanded"), "true");
			assert.equal(await detail.locator("button:has-text('Start')").isDisabled(), true, "a blocked task cannot start");
			await detail.locator("button[aria-label='t2 no longer waits for t1']").click();
			await waitForTask(page, "t2", "pending", "ready");
			await detail.locator("select[name='todo-link']").selectOption("t1");
			await detail.locator("button:has-text('Link')").click();
			await waitForTask(page, "t2", "pending", "blocked");

			// t1 waiting for t2 would close a cycle: refused, with the service's sentence, and nothing changes.
			await row(page, "t2").locator(".todo-open").click();
			await row(page, "t1").locator(".todo-open").click();
			await page.locator("#todo-detail-t1 select[name='todo-link']").selectOption("t2");
			await page.click("#todo-detail-t1 button:has-text('Link')");
			const error = row(page, "t1").locator(".todo-error[role='alert']");
			await error.waitFor();
			assert.match((await error.textContent())!, /cycle/i);
			assert.equal(await row(page, "t1").locator(".todo-deps").count(), 0, "t1 waits for nothing");

			await page.click("#todo-detail-t1 button:has-text('Drop')");
			await waitForTask(page, "t1", "abandoned");
			await waitForTask(page, "t2", "in_progress", "active"); // an abandoned task blocks nothing
			await page.click("#todo-detail-t1 button:has-text('Reopen')");
			await waitForTask(page, "t1", "in_progress");
			await row(page, "t1").locator(".todo-open").click();
		});

		test("a change made by another client shows at once", async () => {
			const client = await TestClient.connect(chat.service.skiff.wsUrl);
			try {
				await client.ok({ type: "todo_op", sessionId: await sessionOf(page), op: "append", phase: "Check", items: [{ content: "Ship it", dependsOn: ["t2"] }] });
				await waitForTask(page, "t3", "pending", "blocked");
				assert.match((await page.textContent(".todo-summary"))!, /of 3 done/);
			} finally {
				client.close();
			}
		});

		test("remove asks first, names the tasks that wait for it, and removes them with it", async () => {
			await row(page, "t2").locator(".todo-open").click();
			await page.click("#todo-detail-t2 button:has-text('Remove…')");
			const confirm = page.locator("#todo-detail-t2 .todo-confirm");
			assert.match((await confirm.textContent())!, /Remove t2 from the plan\? 1 task waits for it and goes too: t3 “Ship it”\./);
			await confirm.locator("button:has-text('Keep')").click();
			await page.waitForSelector("#todo-detail-t2 button:has-text('Remove…')");
			await page.click("#todo-detail-t2 button:has-text('Remove…')");
			await page.click("#todo-detail-t2 button:has-text('Remove 2 tasks')");
			await page.waitForFunction(() => !document.querySelector(".todo-task[data-id='t2'], .todo-task[data-id='t3']"));
			assert.match((await page.textContent(".todo-summary"))!, /0 of 1 done · 1 active/);
			await row(page, "t1").locator(".todo-open").click();
			await page.click("#todo-detail-t1 button:has-text('Remove…')");
			assert.doesNotMatch((await page.textContent("#todo-detail-t1 .todo-confirm"))!, /waits for it/, "nothing else goes");
			await page.click("#todo-detail-t1 .todo-confirm button:has-text('Remove')");
			await page.waitForSelector(".todo .empty-state:has-text('No plan yet')");
		});

		test("the agent's todo tool: the panel follows the plan while the run goes on", async () => {
			await newSession(page, viewport);
			await showPanel(page, viewport, "todo");
			await page.waitForSelector(".todo .empty-state");
			const plan = { op: "init", list: [{ phase: "Parse", items: ["Read the grammar", { content: "Write the parser", dependsOn: ["Read the grammar"] }] }, { phase: "Verify", items: [{ content: "Fuzz it", dependsOn: ["Write the parser"] }] }] };
			let release = afterTool.hold();
			try {
				await sendAndShow(page, viewport, `Plan the parser work.\nCALL todo ${JSON.stringify(plan)}\nAFTER_TOOL The plan is ready.`);
				await waitForTask(page, "t1", "in_progress", "active");
				await waitForTask(page, "t2", "pending", "blocked");
				await waitForTask(page, "t3", "pending", "blocked");
				assert.match((await page.textContent(".todo-phase:last-of-type h3"))!, /Verify/);
				assert.equal(await page.getAttribute(".app", "data-run"), "running", "the plan shows while the agent still works");
			} finally {
				release();
			}
			await page.waitForSelector(".app[data-run='idle']");

			release = afterTool.hold();
			try {
				await sendAndShow(page, viewport, `Done reading.\nCALL todo {"op":"done","task":"t1"}\nAFTER_TOOL Next, the parser.`);
				await waitForTask(page, "t1", "completed");
				await waitForTask(page, "t2", "in_progress", "active");
				assert.equal(await page.getAttribute(".app", "data-run"), "running");
				assert.match((await row(page, "t1").getAttribute("class"))!, /just-done/, "the task just completed is marked");
			} finally {
				release();
			}
			await page.waitForSelector(".app[data-run='idle']");
			// The mark is for the moment of the change: reopening the panel later does not replay it.
			await page.waitForTimeout(1700);
			await showPanel(page, viewport, "goal");
			await showPanel(page, viewport, "todo");
			await waitForTask(page, "t1", "completed");
			assert.doesNotMatch((await row(page, "t1").getAttribute("class"))!, /just-done/);
		});
	});
}
