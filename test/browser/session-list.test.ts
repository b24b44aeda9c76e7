/**
 * The session list as a workspace (issue 22, item 6; issue 24's live state): restarts and reloads add no empty
 * "New session"; a job's session is folded under its parent with its kind, never a session of its own; search
 * across projects with the matched snippet, by keyboard, and its empty and failed states; delete with a
 * confirmation (the open session too), the Trash and Restore; each session's live state (running, needs
 * attention) from pushed events, for sessions the page did not open.
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, newSession, openPage, reconnected, runPrompt, settled, showPanel, VIEWPORTS } from "../support/browser.js";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { ReplyGate } from "../support/reply-gate.js";
import { portForRestart } from "../support/restart-port.js";
import { writeLongSession } from "../support/session-file.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { until } from "../support/until.js";
import { TestClient } from "../support/ws-client.js";

let browser: Browser;
let model: FakeOpenAiServer;
let skiff: SkiffProcess;
let client: TestClient;
const gate = new ReplyGate();
const agentDir = tempDir();
const cwd = tempDir();
let listen: string;

/** Starts the service (again) on the same address and agent directory, with a test client of its own. */
async function startService(): Promise<void> {
	skiff = await startSkiff({ agentDir, cwd, listen, args: ["--model", "fake/fake-model"] });
	client = await TestClient.connect(skiff.wsUrl);
}

before(async () => {
	model = await startFakeOpenAi({ onRequest: () => gate.held });
	writeFakeModelsJson(agentDir, model.url);
	// Another project's session, found by a search across projects ("Answer 1: it works like **this**…").
	writeLongSession(agentDir, tempDir(), "elsewhere-session", 6);
	listen = `127.0.0.1:${await portForRestart()}`;
	await startService();
	browser = await launchBrowser();
});

after(async () => {
	client?.close();
	await browser?.close();
	await skiff?.stop();
	await model?.close();
});

/** The titles of the Sessions panel's top-level rows. */
const rowTitles = (page: Page) => page.$$eval(".panel-body > .session-list > li .session-open > .session-title > span:first-child", (spans) => spans.map((s) => s.textContent));

test("restarting the service with the page open, and reloading it, adds no empty New session to the lists", async () => {
	const page = await openPage(browser, skiff.url, VIEWPORTS[0]);
	const frames: string[] = [];
	page.on("websocket", (ws) => ws.on("framereceived", (f) => frames.push(String(f.payload))));
	try {
		await runPrompt(page, "Kept across restarts\nREPLY kept");
		for (const reload of [false, true]) {
			client.close();
			await skiff.stop();
			await startService();
			const primary = (await client.ok({ type: "get_state" })).sessionId; // the new, empty session of this start
			frames.length = 0;
			if (reload) await page.reload();
			await reconnected(page);
			await showPanel(page, VIEWPORTS[0], "sessions");
			// The page has read a list naming the new session (so it knows of it) before the rows are looked at.
			await until(() => frames.some((f) => f.includes('"command":"session_list"') && f.includes(primary)), "a session list naming the new session");
			await settled(page);
			assert.deepEqual(await rowTitles(page), ["Kept across restarts"], "only the session in use, no empty New session");
		}
		await page.keyboard.press("Control+k");
		await page.waitForSelector("dialog.switcher [role='option']");
		await settled(page);
		const options = await page.$$eval("dialog.switcher [role='option']:not(.panel-option) .option-title", (els) => els.map((e) => e.textContent));
		assert.ok(options.includes("Kept across restarts (current)"));
		assert.ok(!options.some((o) => o?.startsWith("New session")), "no empty New session either");
		await page.keyboard.press("Escape");
	} finally {
		await page.context().close();
	}
});

for (const viewport of VIEWPORTS) {
	describe(`the session list at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let page: Page;
		const tag = viewport.name;
		before(async () => {
			page = await openPage(browser, skiff.url, viewport);
		});
		after(() => page?.context().close());

		const current = () => page.evaluate(() => sessionStorage.getItem("skiff.session")!);
		const closeDrawer = async () => {
			if (viewport.phone && (await page.locator(".app.panel-open").count())) await page.click("button.panel-close");
		};

		test("a job's session is folded under the session it worked for, tagged with its kind, with its messages", async () => {
			await newSession(page, viewport);
			await runPrompt(page, `Parent of a job ${tag}\nREPLY parent`);
			const parent = await current();
			const from = client.events.length;
			const { jobs } = await client.ok({ type: "task_spawn", sessionId: parent, task: `Job task ${tag}\nREPLY child words` });
			await client.waitForEvent((e) => e.type === "job_updated" && e.job.id === jobs[0].id && e.job.status === "completed", 30_000, from);
			await showPanel(page, viewport, "sessions");
			const row = page.locator(`.session-list li[data-session-id="${parent}"]`);
			const fold = row.locator("button[aria-expanded]");
			await fold.waitFor();
			assert.equal((await fold.textContent())?.trim(), "▸ 1 job");
			assert.ok(!(await rowTitles(page)).some((t) => t?.includes("Job task")), "not a row of its own");
			await fold.click();
			const child = row.locator("ul li");
			await child.waitFor();
			assert.equal(await fold.getAttribute("aria-expanded"), "true");
			assert.equal(await child.locator(".tag").textContent(), "job");
			assert.match((await child.locator(".session-meta").textContent()) ?? "", /2 messages/);
			assert.match((await child.locator(".session-title").textContent()) ?? "", /Job task/);
			await closeDrawer();
		});

		test("search finds message text across projects, marks it, goes by keyboard; no hits and a failure say so", async () => {
			await showPanel(page, viewport, "sessions");
			const box = page.locator("input.session-search");
			await box.fill("WORKS LIKE");
			const hit = page.locator("#session-hits li", { hasText: "Question number 0" });
			await hit.waitFor();
			assert.equal(await hit.locator("mark").first().textContent(), "works like");
			assert.match((await hit.locator(".session-meta").textContent()) ?? "", /6 messages/);
			await page.waitForSelector(".panel-body p[role='status']:has-text('found')");
			await box.press("ArrowDown");
			assert.equal(await page.evaluate(() => document.activeElement?.closest("#session-hits") !== null), true, "Down goes to the hits");
			await page.keyboard.press("ArrowUp");
			assert.equal(await page.evaluate(() => document.activeElement?.classList.contains("session-search")), true, "Up goes back to the box");
			await box.press("Enter");
			await page.waitForSelector(".top .title:has-text('Question number 0')");
			if (viewport.phone) await page.waitForSelector(".app:not(.panel-open)");

			await showPanel(page, viewport, "sessions");
			await box.fill("zzqq nothing holds this");
			await page.waitForSelector(".empty-state:has-text('No session holds')");
			await box.fill("x".repeat(201));
			await page.waitForSelector(".empty-state:has-text('The search failed')");
			assert.match((await page.textContent(".empty-state")) ?? "", /query/);
			await box.press("Escape");
			await page.waitForSelector(".segmented");
			assert.equal(await box.inputValue(), "");
			await closeDrawer();
		});

		test("delete asks first; the trash lists it and Restore brings it back; deleting the open session shows the first one", async () => {
			await newSession(page, viewport);
			await runPrompt(page, `Doomed ${tag}\nREPLY doomed`);
			const doomed = await current();
			await newSession(page, viewport);
			await runPrompt(page, `Keeper ${tag}\nREPLY keeper`);
			const keeper = await current();
			await showPanel(page, viewport, "sessions");
			const row = page.locator(`.session-list li[data-session-id="${doomed}"]`);
			await row.locator("button:has-text('Delete')").click();
			await row.locator("[role='group'][aria-label='Confirm deletion']").waitFor();
			assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), "Cancel", "the safe choice has the focus");
			await page.keyboard.press("Enter");
			await row.locator("[role='group']").waitFor({ state: "detached" });
			await row.locator("button:has-text('Delete')").click();
			await row.locator("button:has-text('Move to trash')").click();
			await row.waitFor({ state: "detached" });
			assert.equal(readdirSync(join(agentDir, "trash", "sessions")).length > 0, true, "moved into the trash folder");

			await page.click(".segmented button:has-text('Trash')");
			const trashed = page.locator(".session-list li", { hasText: `Doomed ${tag}` });
			await trashed.waitFor();
			await trashed.locator("button:has-text('Restore')").click();
			await trashed.waitFor({ state: "detached" });
			await page.click(".segmented button:has-text('This project')");
			await row.waitFor();

			// The open session: the page moves to the service's first session.
			const open = page.locator(`.session-list li[data-session-id="${keeper}"]`);
			await open.locator("button:has-text('Delete')").click();
			assert.match((await open.locator("[role='group']").textContent()) ?? "", /first session/);
			await open.locator("button:has-text('Move to trash')").click();
			await page.waitForFunction((id) => sessionStorage.getItem("skiff.session") !== id || document.querySelector(".toast"), keeper);
			assert.equal(await page.locator(".toast").count(), 0, `no failure: ${await page.locator(".toasts").textContent()}`);
			await open.waitFor({ state: "detached" });
			assert.notEqual(await page.textContent(".top .title"), `Keeper ${tag}`);
			await closeDrawer();
		});

		test("sessions opened elsewhere show their live state: running, then idle; a paused goal and a failed run need attention until dealt with or opened", async () => {
			const { sessionId } = await client.ok({ type: "new_session" });
			const release = gate.hold();
			after(release); // never left holding the model when this test fails
			const from = client.events.length;
			await client.ok({ type: "prompt", sessionId, message: `Live state ${tag}\nREPLY live words` });
			// The panel reads the list as it opens: the page learns of the session made elsewhere then.
			await showPanel(page, viewport, "tree");
			await showPanel(page, viewport, "sessions");
			const row = page.locator(`.session-list li[data-session-id="${sessionId}"]`);
			await row.locator(".job-status:has-text('running')").waitFor();
			release();
			await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 20_000, from);
			await row.locator(".job-status").waitFor({ state: "detached" });

			// Its goal paused elsewhere: it needs attention until the goal goes on.
			await client.ok({ type: "goal_create", sessionId, objective: "Keep the list honest" });
			await client.ok({ type: "goal_pause", sessionId });
			const flag = row.locator(".job-status:has-text('needs attention')");
			await flag.waitFor();
			assert.match((await flag.getAttribute("title")) ?? "", /goal is paused/);
			await client.ok({ type: "goal_resume", sessionId });
			await flag.waitFor({ state: "detached" });
			await client.ok({ type: "goal_drop", sessionId });

			await client.ok({ type: "prompt", sessionId, message: "ERROR 500 broken on purpose" });
			await flag.waitFor();
			assert.match((await flag.getAttribute("title")) ?? "", /run failed/);
			await row.locator(".session-open").click();
			await page.waitForFunction((id) => sessionStorage.getItem("skiff.session") === id, sessionId);
			await showPanel(page, viewport, "sessions");
			await settled(page);
			assert.equal(await row.locator(".job-status").count(), 0, "seen: no longer flagged");
			await closeDrawer();
		});

		test("a goal paused before the page loads is flagged once the page is loaded again, in a session not loaded too (from the list)", async () => {
			const paused = async (close: boolean) => {
				const { sessionId } = await client.ok({ type: "new_session" });
				await client.ok({ type: "goal_create", sessionId, objective: `Paused before ${tag}` });
				await client.ok({ type: "goal_pause", sessionId });
				if (close) await client.ok({ type: "close_session", sessionId });
				return sessionId as string;
			};
			const ids = [await paused(false), await paused(true)];
			await page.reload();
			await page.waitForSelector('.pill[data-status="connected"]');
			await showPanel(page, viewport, "sessions");
			for (const sessionId of ids) {
				const flag = page.locator(`.session-list li[data-session-id="${sessionId}"] .job-status:has-text('needs attention')`);
				await flag.waitFor();
				assert.match((await flag.getAttribute("title")) ?? "", /goal is paused/);
			}
			const rows = (await client.ok({ type: "session_list" })).sessions;
			assert.equal(rows.find((s: { sessionId: string }) => s.sessionId === ids[1]).loaded, false, "flagged from the list: nothing loaded it");
			await closeDrawer();
		});

		test("Ctrl+K finds sessions by their messages too, showing where, and never holds typing up", async () => {
			const box = page.locator("dialog.switcher input[role='combobox']");
			await page.keyboard.press("Control+k");
			await box.pressSequentially("works like");
			const hit = page.locator("dialog.switcher [role='option']", { hasText: "Question number 0" });
			await hit.waitFor();
			assert.equal(await hit.locator(".snippet mark").textContent(), "works like", "the snippet marks the match");
			const fits = await hit.evaluate((li) => {
				const mark = li.querySelector("mark")!.getBoundingClientRect();
				const dialog = li.closest("dialog")!;
				return dialog.scrollWidth <= dialog.clientWidth && mark.right <= li.getBoundingClientRect().right;
			});
			assert.ok(fits, "the match is in view, nothing overflows the dialog");
			// Typing on drops hits of the text typed before.
			await box.pressSequentially(" zzqq");
			await page.locator("dialog.switcher .none:has-text('No session or panel matches')").waitFor();
			assert.equal(await box.inputValue(), "works like zzqq");
			for (let n = 0; n < 5; n++) await box.press("Backspace");
			await hit.waitFor();
			const at = Number((await hit.getAttribute("id"))!.replace("switch-option-", ""));
			for (let n = 0; n < at; n++) await box.press("ArrowDown");
			assert.equal(await hit.getAttribute("aria-selected"), "true");
			await box.press("Enter");
			await page.waitForSelector(".top .title:has-text('Question number 0')");
			await page.locator("dialog.switcher").waitFor({ state: "hidden" });
		});
	});
}
