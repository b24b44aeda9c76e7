/**
 * A command button's click is always taken and always ends, at desktop and phone sizes (the Maintenance panel's
 * Doctor, where clean-clone CI runs under load saw the panel idle 30 s after a click: no "Checking…", no result,
 * no error). The cause: answers the panel asked for as it opened (the session's figures, the memory) arrived
 * between the press and the release, the sections above grew, the button moved down, and the release landed on
 * something else, so the browser sent the click to their common ancestor and the button's handler never ran
 * (Playwright reports such a click as done). Now the page holds its re-renders while a button is pressed; the
 * busy state renders with the click itself, not a frame later; and a command that gets no answer ends in an
 * error (the socket dropped, or no answer within the page's bound).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Page } from "playwright-core";
import { openPage, settled, showPanel, useChatService, VIEWPORTS } from "../support/browser.js";
import { SocketGate } from "../support/socket-gate.js";

const chat = useChatService();

const DOCTOR = ".panel.maintenance section[aria-label='Doctor']";
/** DOCTOR_ANSWER_MS of web/src/state/maintenance-state.ts (whose imports the tests' compiler cannot follow). */
const DOCTOR_ANSWER_MS = 90_000;

/** Waits until `condition` holds (checked every 20 ms; 30 s at most, then fails naming `what`). */
async function until(condition: () => boolean, what: string): Promise<void> {
	for (let waited = 0; !condition(); waited += 20) {
		if (waited > 30_000) assert.fail(`never: ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

/** The Doctor button as the page has it now: its text and whether it can be pressed. */
function doctorButton(page: Page): Promise<{ text: string; disabled: boolean }> {
	return page.evaluate((selector) => {
		const button = document.querySelector<HTMLButtonElement>(`${selector} button`)!;
		return { text: button.textContent!, disabled: button.disabled };
	}, DOCTOR);
}

async function gatedPage(viewport: (typeof VIEWPORTS)[number], gate: SocketGate, clock = false): Promise<Page> {
	return openPage(chat.browser, chat.service.skiff.url, viewport, {
		before: async (page) => {
			if (clock) await page.clock.install();
			await gate.attach(page);
		},
	});
}

for (const viewport of VIEWPORTS) {
	describe(`command clicks at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		test("Run the checks is taken when the panel's late answers arrive between press and release", async () => {
			const gate = new SocketGate();
			const late = new Set(["get_session_stats", "memory_status", "memory_entries"]);
			gate.holdAnswersTo = (command) => late.has(command);
			const page = await gatedPage(viewport, gate);
			try {
				await showPanel(page, viewport, "maintenance");
				const button = page.locator(`${DOCTOR} button`);
				await button.waitFor();
				await until(() => gate.holding === late.size, "the panel asked for its figures and the memory");
				await settled(page);
				const box = (await button.boundingBox())!;
				await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
				await page.mouse.down();
				gate.release(); // the answers come while the button is held down
				await settled(page); // frames in which they would render
				await page.mouse.up();
				const after = await doctorButton(page);
				assert.notEqual(after.text, "Run the checks", "the click was taken: the button says so at once");
				await page.waitForSelector(`${DOCTOR} .checks li[data-check='model'].ok`);
				await page.waitForSelector(".panel.maintenance .memory-status"); // held only while pressed
			} finally {
				await page.context().close();
			}
		});

		test("Run the checks shows Checking… with the click; a dropped connection ends it in an error, and it works again after", async () => {
			const gate = new SocketGate();
			gate.holdAnswersTo = (command) => command === "doctor";
			const page = await gatedPage(viewport, gate);
			try {
				await showPanel(page, viewport, "maintenance");
				await page.locator(`${DOCTOR} button:has-text('Run the checks')`).waitFor();
				// Read as the click's own task ends (its microtasks run, no frame yet): the busy state is there already.
				const atClick = await page.evaluate(async (selector) => {
					const button = document.querySelector<HTMLButtonElement>(`${selector} button`)!;
					button.click();
					await Promise.resolve();
					return { text: button.textContent!, disabled: button.disabled };
				}, DOCTOR);
				assert.deepEqual(atClick, { text: "Checking…", disabled: true }, "busy with the click, before any answer or frame");
				await until(() => gate.holding === 1, "the doctor's answer is held");
				await gate.drop();
				const error = page.locator(`${DOCTOR} .error-text`);
				await error.waitFor();
				assert.match((await error.textContent())!, /^The checks did not finish: the connection closed/);
				assert.equal((await doctorButton(page)).text, "Run the checks");
				await page.waitForSelector('.pill[data-status="connected"]'); // reconnected through the gate
				gate.holdAnswersTo = undefined;
				await page.click(`${DOCTOR} button:has-text('Run the checks')`);
				await page.waitForSelector(`${DOCTOR} .checks li[data-check='model'].ok`);
				assert.equal(await error.count(), 0, "the error went with the new result");
			} finally {
				await page.context().close();
			}
		});

		test("a doctor that never answers ends in an error after the page's bound, not an idle panel", async () => {
			const gate = new SocketGate();
			gate.holdAnswersTo = (command) => command === "doctor";
			const page = await gatedPage(viewport, gate, true);
			try {
				await showPanel(page, viewport, "maintenance");
				await page.click(`${DOCTOR} button:has-text('Run the checks')`);
				assert.equal((await doctorButton(page)).text, "Checking…");
				await until(() => gate.holding === 1, "the doctor's answer is held");
				await page.clock.fastForward(DOCTOR_ANSWER_MS - 1000);
				assert.equal((await doctorButton(page)).text, "Checking…", "still waiting within the bound");
				await page.clock.fastForward(2000);
				const error = page.locator(`${DOCTOR} .error-text`);
				await error.waitFor();
				assert.match((await error.textContent())!, /^The checks did not finish: no answer from the service/);
				assert.deepEqual(await doctorButton(page), { text: "Run the checks", disabled: false });
				gate.release(); // the late answer finds nothing waiting for it: the error stays
				await settled(page);
				assert.equal(await error.count(), 1);
			} finally {
				await page.context().close();
			}
		});
	});
}
