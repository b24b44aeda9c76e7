/**
 * The maintenance panel in Chromium against a real skiff and the fake model, at desktop and phone sizes:
 * context and cost updated by events (never polled); compaction's before → after report; a waiting steer
 * withdrawn back into the message box (once); the session downloaded as HTML and JSONL, with a token sent only
 * as a header; pruning old sessions after a dry run; the memory inspector (list, search, forget); the doctor's
 * checks (the model request only when asked for).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { LocalMemoryStore, projectStorePath } from "../../src/features/memory/local-store.js";
import { type ChatService, launchBrowser, openPage, runPrompt, showPanel, startChatService, typeAndSend, VIEWPORTS, type Viewport } from "../support/browser.js";
import { tempDir } from "../support/skiff-process.js";

let browser: Browser;

before(async () => {
	browser = await launchBrowser();
});

after(async () => {
	await browser?.close();
});

/** On a phone, closes the drawer (the message box is out of reach while it is open). */
async function closeDrawer(page: Page, viewport: Viewport): Promise<void> {
	if (viewport.phone && (await page.locator(".app.panel-open").count())) {
		await page.click("button.panel-close");
		await page.waitForSelector(".app:not(.panel-open)");
	}
}

const figure = async (page: Page, name: string) => Number((await page.textContent(`.stats div:has(dt:text-is("${name}")) dd`))!.replace(/\D/g, ""));

/** Writes a recorded session of another project, last modified `days` days ago; returns its path. */
function oldSession(agentDir: string, id: string, days: number): string {
	const dir = join(agentDir, "sessions", "--old-project--");
	mkdirSync(dir, { recursive: true });
	const path = join(dir, `2020-01-01T00-00-00-000Z_${id}.jsonl`);
	const header = { type: "session", version: 3, id, timestamp: "2020-01-01T00:00:00.000Z", cwd: "/old/project" };
	const message = { type: "message", id: "e1", parentId: null, timestamp: "2020-01-01T00:00:01.000Z", message: { role: "user", content: [{ type: "text", text: "old" }], timestamp: 1 } };
	writeFileSync(path, `${JSON.stringify(header)}\n${JSON.stringify(message)}\n`);
	const when = new Date(Date.now() - days * 86_400_000);
	utimesSync(path, when, when);
	return path;
}

for (const viewport of VIEWPORTS) {
	describe(`the maintenance panel at ${viewport.name} size (${viewport.width}×${viewport.height})`, () => {
		let service: ChatService;
		let page: Page;
		/** Every command the page sent over its WebSocket. */
		const sent: string[] = [];
		before(async () => {
			const agentDir = tempDir();
			// Keep only the latest messages uncompacted, so that a few short turns can be compacted.
			writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 50 } }));
			service = await startChatService({ agentDir });
			page = await openPage(browser, service.skiff.url, viewport, {
				before: (p) => {
					p.on("websocket", (ws) => ws.on("framesent", (frame) => sent.push(String(frame.payload))));
				},
			});
		});
		after(async () => {
			await page?.context().close();
			await service?.close();
		});

		test("context and cost follow every turn by events; compaction reports before → after", async () => {
			await runPrompt(page, "first turn of the maintenance test");
			await showPanel(page, viewport, "maintenance");
			await page.waitForSelector(".meter[role='meter']");
			const input = await figure(page, "Input");
			assert.ok(input > 0, "tokens in");
			const meter = Number(await page.getAttribute(".meter", "aria-valuenow"));
			assert.ok(meter > 0 && meter < 100, `context ${meter}%`);

			await closeDrawer(page, viewport);
			await runPrompt(page, `second turn ${"with more words ".repeat(40)}`);
			await showPanel(page, viewport, "maintenance");
			await page.waitForFunction((before) => Number(document.querySelector('.stats div:has(dt) dd')!.textContent!.replace(/\D/g, "")) > before, input);
			assert.ok(sent.filter((f) => f.includes('"get_session_stats"')).length <= 1, "read once at most; every later figure came by event");

			await closeDrawer(page, viewport);
			await runPrompt(page, `third turn ${"and still more words ".repeat(40)}`);
			await showPanel(page, viewport, "maintenance");
			await page.fill(".compact-form input", "Keep the turn numbers.");
			await page.click("button:has-text('Compact now')");
			await page.waitForSelector(".panel.maintenance .result:has-text('Compacted:')");
			const [before, after] = (await page.textContent(".panel.maintenance .result:has-text('Compacted:')"))!.match(/[\d,]+/g)!.map((n) => Number(n.replace(/,/g, "")));
			assert.ok(after! < before!, `${before} → ${after}`);
		});

		test("a waiting steer is withdrawn into the message box, and not given back again when the run ends", async () => {
			await closeDrawer(page, viewport);
			await typeAndSend(page, "long tool\nRUN sleep 30");
			await page.waitForSelector(".working:has-text('Running bash')");
			await typeAndSend(page, "withdraw me please");
			await page.waitForSelector(".msg.pending");
			await showPanel(page, viewport, "maintenance");
			await page.waitForSelector(".queue-list li:has-text('withdraw me please')");
			await page.click(".queue-list li button:has-text('Withdraw')");
			await page.waitForSelector(".queue-list", { state: "detached" });
			await closeDrawer(page, viewport);
			await page.waitForSelector(".msg.pending", { state: "detached" });
			assert.equal(await page.inputValue("#composer"), "withdraw me please");
			await page.click("button.abort");
			await page.waitForSelector(".app[data-run='idle']");
			assert.equal(await page.inputValue("#composer"), "withdraw me please", "given back once");
			assert.equal(await page.locator(".composer-note").count(), 0);
			await page.fill("#composer", "");
		});

		test("the session downloads as a page and as its JSONL file", async () => {
			await showPanel(page, viewport, "maintenance");
			for (const [button, check] of [
				["Page (HTML)", (text: string) => assert.match(text, /<html/i)],
				["Session file (JSONL)", (text: string) => assert.equal(JSON.parse(text.split("\n")[0]!).type, "session")],
			] as const) {
				const download = page.waitForEvent("download");
				await page.click(`.panel.maintenance button:has-text('${button}')`);
				const file = await download;
				assert.match(file.suggestedFilename(), /^skiff-session-.+\.(html|jsonl)$/);
				check(readFileSync((await file.path())!, "utf8"));
			}
			await page.waitForSelector(".panel.maintenance .result:has-text('Saved skiff-session-')");
		});

		test("the memory inspector lists, searches and forgets what the agent remembers", async () => {
			const store = new LocalMemoryStore(projectStorePath(service.agentDir, service.cwd));
			await store.learn(`deploys happen on Tuesday ${viewport.name}`, ["ops"], "s1");
			await store.learn(`use tabs for indentation ${viewport.name}`, [], "s1");
			await showPanel(page, viewport, "maintenance");
			await page.click(".panel.maintenance button:has-text('Refresh')");
			await page.waitForSelector(`.memory-list li:has-text('deploys happen on Tuesday ${viewport.name}')`);
			assert.match((await page.textContent(".memory-status"))!, /Local notes: working/);

			await page.fill("input[aria-label='Search what the agent remembers']", "indentation");
			await page.press("input[aria-label='Search what the agent remembers']", "Enter");
			await page.waitForFunction(() => document.querySelectorAll(".memory-list li").length === 1);
			await page.check(".memory-list li input[type='checkbox']");
			await page.click(".panel.maintenance button:has-text('Forget 1 entry')");
			await page.waitForSelector(".panel.maintenance .result:has-text('Forgot 1 entry')");
			const left = readFileSync(projectStorePath(service.agentDir, service.cwd), "utf8");
			assert.doesNotMatch(left, /use tabs for indentation/);
			assert.match(left, /deploys happen on Tuesday/);
		});

		test("the doctor explains each check; the model is asked only when chosen", async () => {
			await showPanel(page, viewport, "maintenance");
			await page.click(".panel.maintenance button:has-text('Run the checks')");
			await page.waitForSelector(".checks li[data-check='model'].ok");
			assert.equal(await page.locator(".checks li[data-check='model_reachable']").count(), 0);
			for (const failed of await page.locator(".checks li.failed").all()) assert.ok(await failed.locator(".fix").count(), "a failed check says what to do");
			// One plain verdict each: a loopback listener without a token passes with a caution that says who can
			// drive the agent (not "protected: passed" beside "any program of any user…"), and says how to close it.
			const listener = page.locator(".checks li[data-check='listener_auth']");
			assert.equal(await listener.getAttribute("class"), "caution");
			assert.equal(await listener.locator(".sr-only").textContent(), ": caution");
			assert.doesNotMatch((await listener.textContent())!, /protected|passed/);
			assert.match((await listener.locator(".hint").textContent())!, /^Any program of any user on this machine/);
			assert.match((await listener.locator(".fix").textContent())!, /--listen-token-file/);
			const requests = service.model.requests.length;
			await page.check(".panel.maintenance label:has-text('Also ask the model') input");
			await page.click(".panel.maintenance button:has-text('Check again')");
			await page.waitForSelector(".checks li[data-check='model_reachable'].ok");
			assert.equal(service.model.requests.length, requests + 1, "one request to the model");
		});

		test("pruning lists old sessions first and removes them only when confirmed", async () => {
			const old = [oldSession(service.agentDir, `old-a-${viewport.name}`, 90), oldSession(service.agentDir, `old-b-${viewport.name}`, 60)];
			const recent = oldSession(service.agentDir, `recent-${viewport.name}`, 2);
			await showPanel(page, viewport, "maintenance");
			await page.fill("#prune-days", "-3");
			assert.equal(await page.isDisabled(".prune-form button"), true);
			assert.equal(await page.getAttribute("#prune-days", "aria-invalid"), "true");
			await page.fill("#prune-days", "30");
			await page.click(".prune-form button:has-text('Find')");
			await page.waitForSelector(".prune-list:has-text('2 sessions')");
			assert.ok(old.every(existsSync), "a dry run removes nothing");
			await page.click(".prune-list button:has-text('Remove 2 sessions')");
			await page.waitForSelector(".panel.maintenance .result:has-text('Removed 2 sessions')");
			assert.ok(!old.some(existsSync));
			assert.ok(existsSync(recent));
		});

		test("with a token, a download sends it as a header, never in a URL", async () => {
			const token = "maintenance-token-123";
			const dir = tempDir();
			writeFileSync(join(dir, "token"), token, { mode: 0o600 });
			const guarded = await startChatService({ args: ["--model", "fake/fake-model", "--listen-token-file", join(dir, "token")] });
			const exports: Array<{ url: string; authorization: string | undefined }> = [];
			const tokenPage = await openPage(browser, guarded.skiff.url, viewport, {
				before: async (p) => {
					await p.addInitScript((t) => sessionStorage.setItem("skiff.token", t), token);
					p.on("request", (r) => r.url().includes("/export/") && exports.push({ url: r.url(), authorization: r.headers().authorization }));
				},
			});
			try {
				await runPrompt(tokenPage, "something to download");
				await showPanel(tokenPage, viewport, "maintenance");
				const download = tokenPage.waitForEvent("download");
				await tokenPage.click(".panel.maintenance button:has-text('Session file (JSONL)')");
				assert.match(readFileSync((await (await download).path())!, "utf8"), /something to download/);
				assert.equal(exports.length, 1);
				assert.equal(exports[0]!.authorization, `Bearer ${token}`);
				assert.ok(!exports[0]!.url.includes(token));
			} finally {
				await tokenPage.context().close();
				await guarded.close();
			}
		});
	});
}
