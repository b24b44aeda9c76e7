/**
 * The goal panel against the real service and the fake model: the create form (checked inline), only the
 * actions the goal's state allows, the budget bar charged after each turn, a spent budget pausing the goal
 * and asking for a bigger one, pins up to the limit, the journal, a change from another client shown at
 * once, and a run in which the fake model calls the `goal` tool while the panel follows it live.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { newSession, openPage, showPanel, typeAndSend, useChatService, type Viewport, VIEWPORTS } from "../support/browser.js";
import { ReplyGate } from "../support/reply-gate.js";
import { SocketGate } from "../support/socket-gate.js";
import { until } from "../support/until.js";
import { TestClient } from "../support/ws-client.js";

const chat = useChatService({ onModelRequest: (request) => (request.body?.messages?.at(-1)?.role === "tool" ? afterTool.held : undefined) });
/** While held, the fake model holds its answer to a tool's result: the run goes on meanwhile. */
const afterTool = new ReplyGate();

const sessionOf = (page: Page) => page.evaluate(() => sessionStorage.getItem("skiff.session")!);

/** The action buttons the goal card shows. */
const actions = (page: Page) => page.locator(".goal-card .goal-actions button, .goal-card .goal-resume button").allTextContents();

/** Sends from the message box (on a phone the drawer closes for it), then shows the panel again. */
async function sendAndShow(page: Page, viewport: Viewport, text: string): Promise<void> {
	if (viewport.phone) {
		await page.click("button.panel-close");
		await page.waitForSelector(".app:not(.panel-open)");
	}
	await typeAndSend(page, text);
	await showPanel(page, viewport, "goal");
}

/** Creates a goal from the form, without starting a turn unless `activate`. */
async function createGoal(page: Page, objective: string, options: { budget?: string; activate?: boolean } = {}): Promise<void> {
	await page.fill("textarea[name='goal-objective']", objective);
	await page.fill("input[name='goal-budget']", options.budget ?? "");
	if (!options.activate) await page.uncheck("input[name='goal-activate']");
	await page.click(".goal-create button:has-text('Set goal')");
	await page.waitForSelector(".goal-card[data-lifecycle='active']");
}

for (const viewport of VIEWPORTS) {
	describe(`goal panel at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let page: Page;
		before(async () => {
			page = await openPage(chat.browser, chat.service.skiff.url, viewport);
			await newSession(page, viewport);
			await showPanel(page, viewport, "goal");
		});
		after(() => page?.context().close());

		test("no goal: the form checks its fields inline; a goal set shows with only the actions an active goal allows", async () => {
			await page.waitForSelector(".goal-create:has-text('Set a goal')");
			assert.equal(await page.locator(".goal-journal").count(), 0, "no journal before anything happened");
			await page.click(".goal-create button:has-text('Set goal')");
			await page.waitForSelector("#goal-create-error:has-text('Say what the agent should achieve')");
			await page.fill("textarea[name='goal-objective']", "Make the **parser** fast");
			await page.fill("input[name='goal-budget']", "0");
			await page.click(".goal-create button:has-text('Set goal')");
			await page.waitForSelector("#goal-create-error:has-text('whole number of tokens')");

			await createGoal(page, "Make the **parser** fast");
			assert.equal(await page.locator(".goal-objective strong").textContent(), "parser", "the objective reads as markdown");
			assert.deepEqual(await actions(page), ["Pause", "Complete", "Drop…"]);
			assert.match((await page.textContent(".goal-usage"))!, /0 tokens used · no budget/);
			await page.waitForSelector(".goal-events li[data-kind='created']");
			assert.equal(await page.getAttribute(".app", "data-run"), "idle", "not activated: nothing runs");
		});

		test("pause and resume: a paused goal offers Resume, not Pause, and says why it is paused", async () => {
			await page.click(".goal-actions button:has-text('Pause')");
			await page.waitForSelector(".goal-card[data-lifecycle='paused'][data-pause-reason='manual']");
			const shown = await actions(page);
			assert.ok(shown.includes("Resume") && !shown.includes("Pause"), `paused: ${shown.join(", ")}`);
			assert.match((await page.textContent(".goal-reason"))!, /^Paused by you\./, "says who paused it");
			await page.uncheck("input[name='goal-resume-activate']");
			await page.click(".goal-resume button:has-text('Resume')");
			await page.waitForSelector(".goal-card[data-lifecycle='active']");
			await page.waitForSelector(".goal-events li[data-kind='resumed']");
			assert.deepEqual(await page.locator(".goal-events li span").allTextContents(), ["Resumed", "Paused by you", "Set: “Make the **parser** fast”"], "the journal, newest first");
		});

		test("pins: added and removed, at most 8; the form goes at the limit", async () => {
			for (let n = 1; n <= 8; n++) {
				await page.fill("input[name='goal-pin']", `note ${n}`);
				await page.click(".goal-pin-form button:has-text('Pin')");
				await page.waitForFunction((count) => document.querySelectorAll(".goal-pins li").length === count, n);
			}
			assert.equal(await page.locator(".goal-pin-form").count(), 0, "no ninth pin");
			await page.waitForSelector(".hint:has-text('8 pins, the most a goal holds')");
			await page.click("button[aria-label='Unpin “note 3”']");
			await page.waitForFunction(() => document.querySelectorAll(".goal-pins li").length === 7);
			assert.equal(await page.locator(".goal-pins li", { hasText: "note 3" }).count(), 0);
			await page.waitForSelector(".goal-events li[data-kind='unpinned']");
			// Lengths are characters, as the service counts them: 201 letters are too many, 200 emoji are not.
			await page.fill("input[name='goal-pin']", "x".repeat(201));
			await page.waitForSelector(".hint.error-text:has-text('201/200')");
			await page.click(".goal-pin-form button:has-text('Pin')");
			await page.waitForSelector("[role='alert']:has-text('A pin holds at most 200 characters')");
			await page.fill("input[name='goal-pin']", "🙂".repeat(200));
			await page.waitForSelector(".hint:not(.error-text):has-text('200/200')");
			await page.click(".goal-pin-form button:has-text('Pin')");
			await page.waitForFunction(() => document.querySelectorAll(".goal-pins li").length === 8);
		});

		test("drop asks first; a dropped goal is shown ended, with the form for a new one", async () => {
			await page.click(".goal-actions button:has-text('Drop…')");
			await page.click(".goal-confirm button:has-text('Keep')");
			assert.equal(await page.locator(".goal-card[data-lifecycle='active']").count(), 1);
			await page.click(".goal-actions button:has-text('Drop…')");
			await page.click(".goal-confirm button:has-text('Drop')");
			await page.waitForSelector(".goal-card.ended[data-lifecycle='dropped']");
			await page.waitForSelector(".goal-create:has-text('New goal')");
		});

		test("usage is charged after each turn; a spent budget pauses the goal and resuming asks for a bigger one", async () => {
			const objective = "Spend a tiny budget on purpose, so that the goal pauses by itself once the very first turn has used more tokens than the budget allows";
			await createGoal(page, objective, { budget: "5" });
			assert.match((await page.textContent(".goal-usage"))!, /0 of 5 tokens \(0\u00a0%\)/, "the share never wraps inside “(0 %)”");
			// The journal cuts a long objective at a word, with an ellipsis.
			const set = (await page.locator(".goal-events li[data-kind='created'] span").first().textContent())!;
			const shown = /^Set: “(.*)…”/.exec(set)?.[1];
			assert.ok(shown && objective.startsWith(shown) && objective[shown.length] === " ", `cut at a word: ${set}`);
			await sendAndShow(page, viewport, "REPLY one turn of work");
			await page.waitForSelector(".goal-card[data-lifecycle='paused'][data-pause-reason='budget_exhausted']");
			assert.match((await page.textContent(".goal-reason"))!, /token budget is spent/);
			assert.equal(await page.locator(".goal-bar.spent").count(), 1);
			const used = Number((await page.textContent(".goal-usage strong"))!.replace(/,/g, ""));
			assert.ok(used >= 5, `charged ${used} tokens`);
			await page.waitForSelector(".goal-events li[data-kind='usage']");

			await page.uncheck("input[name='goal-resume-activate']");
			await page.click(".goal-resume button:has-text('Resume')");
			await page.waitForSelector(".goal-resume .error-text:has-text('A new budget above')");
			await page.fill("input[name='goal-new-budget']", String(used + 100_000));
			await page.click(".goal-resume button:has-text('Resume')");
			await page.waitForSelector(".goal-card[data-lifecycle='active']");
			assert.match((await page.textContent(".goal-usage"))!, new RegExp(`of ${(used + 100_000).toLocaleString("en-US")} tokens`));
		});

		test("a change made by another client shows at once", async () => {
			const client = await TestClient.connect(chat.service.skiff.wsUrl);
			try {
				await client.ok({ type: "goal_pin", sessionId: await sessionOf(page), text: "pinned elsewhere" });
				await page.waitForSelector(".goal-pins li:has-text('pinned elsewhere')");
			} finally {
				client.close();
			}
		});

		test("the agent's goal tool: the panel follows the goal while the run goes on", async () => {
			await newSession(page, viewport);
			await showPanel(page, viewport, "goal");
			await createGoal(page, "Let the agent finish this");

			let release = afterTool.hold();
			try {
				await sendAndShow(page, viewport, `Stop for now.\nCALL goal {"op":"pause"}\nAFTER_TOOL Paused.`);
				await page.waitForSelector(".goal-card[data-lifecycle='paused'][data-pause-reason='manual']");
				assert.equal(await page.getAttribute(".app", "data-run"), "running", "paused by the agent while it still works");
				assert.match((await page.textContent(".goal-reason"))!, /^Paused by the agent\./);
			} finally {
				release();
			}
			await page.waitForSelector(".app[data-run='idle']");

			assert.equal(await page.locator(".transcript .goal-turn").count(), 0);
			await page.click(".goal-resume button:has-text('Resume')"); // and start working now: one continuation turn
			await page.waitForSelector(".goal-card[data-lifecycle='active']");
			await page.waitForSelector(".app[data-run='idle']");
			// The reply the goal started is marked so, right above it.
			const mark = page.locator(".transcript .goal-turn");
			await mark.waitFor({ state: "attached" });
			assert.match((await mark.textContent())!, /Started by the session goal/);
			assert.equal(await mark.evaluate((el) => el.nextElementSibling?.classList.contains("assistant")), true);

			release = afterTool.hold();
			try {
				await sendAndShow(page, viewport, `It is done.\nCALL goal {"op":"complete"}\nAFTER_TOOL Completed.`);
				await page.waitForSelector(".goal-card.ended[data-lifecycle='completed']");
				await page.waitForSelector(".goal-create:has-text('New goal')");
				assert.equal(await page.getAttribute(".app", "data-run"), "running");
			} finally {
				release();
			}
			await page.waitForSelector(".app[data-run='idle']");
			await page.waitForSelector(".goal-events li[data-kind='completed']");
		});
	});
}

test("the next pin typed before the last one's answer arrives stays in the box", async () => {
	const gate = new SocketGate();
	const viewport = VIEWPORTS[0];
	const page = await openPage(chat.browser, chat.service.skiff.url, viewport, { before: (p) => gate.attach(p) });
	try {
		await newSession(page, viewport);
		await showPanel(page, viewport, "goal");
		await createGoal(page, "Type ahead");
		gate.holdAnswersTo = (command) => command === "goal_pin";
		await page.fill("input[name='goal-pin']", "first note");
		await page.click(".goal-pin-form button:has-text('Pin')");
		await page.waitForSelector(".goal-pins li:has-text('first note')"); // its event came; its answer waits
		await until(() => gate.holding === 1, "the held answer");
		await page.fill("input[name='goal-pin']", "second note");
		gate.release();
		await page.waitForFunction(() => !document.querySelector<HTMLButtonElement>(".goal-pin-form button")?.disabled);
		assert.equal(await page.inputValue("input[name='goal-pin']"), "second note");
	} finally {
		await page.context().close();
	}
});
