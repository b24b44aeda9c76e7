/** The page in Chromium against the real listener and the fake model: streaming, tools, steering, aborting, sessions. */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Page } from "playwright-core";
import { type ChatPage, openChatPage, settled } from "../support/browser.js";
import { type SkiffProcess, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

let chat: ChatPage;
let page: Page;
let skiff: SkiffProcess;
let requests: string[];
let runsEnded = 0;
const sentFrames: string[] = [];

before(async () => {
	const cwd = tempDir();
	writeFileSync(join(cwd, "numbers.txt"), Array.from({ length: 20 }, (_, i) => `number ${i + 1}`).join("\n"));
	chat = await openChatPage({
		args: ["--model", "fake/fake-model"],
		cwd,
		viewport: { width: 1200, height: 850 },
		watch: (p) =>
			p.on("websocket", (ws) => {
				ws.on("framesent", (f) => sentFrames.push(String(f.payload)));
				ws.on("framereceived", (f) => {
					if (String(f.payload).startsWith('{"type":"agent_end"')) runsEnded++;
				});
			}),
	});
	({ page, skiff, requests } = chat);
});

after(() => chat?.close());

async function send(text: string): Promise<void> {
	const idleBefore = (await page.locator("button.send").textContent()) === "Send";
	await page.fill("textarea", text);
	await page.keyboard.press("Enter");
	if (idleBefore) runsStarted++;
}

/** Waits until the run started by the last send has ended and the page shows it idle. */
async function idle(): Promise<void> {
	const deadline = Date.now() + 20_000;
	while (runsEnded < runsStarted && Date.now() < deadline) await page.waitForTimeout(50);
	await page.waitForSelector(".badge.streaming", { state: "detached", timeout: 20_000 });
}
let runsStarted = 0;
const sentTypes = () => sentFrames.map((f) => JSON.parse(f).type as string);

test("loads tokenless, auto-connects, and requests nothing but the page and its socket", async () => {
	assert.equal(await page.textContent(".pill"), "connected");
	const origin = new URL(skiff.url).origin;
	const foreign = requests.filter((u) => !u.startsWith(origin) && !u.startsWith("data:"));
	assert.deepEqual(foreign, []);
	assert.equal(await page.locator("button.send").textContent(), "Send");
	assert.equal(await page.locator("button.abort").count(), 0, "no Abort button while idle");
});

test("streams thinking, a bash call and another tool call, trimming their output", async () => {
	await send("THINK considering the numbers\nRUN seq 1 25");
	await idle();
	const bash = page.locator(".tool.bash").last();
	assert.equal(await bash.locator(".tool-name").textContent(), "bash");
	assert.equal((await bash.locator("pre").textContent())!.trim().split("\n").length, 10);
	assert.match((await bash.locator(".omitted").textContent())!, /15 earlier lines omitted/);
	assert.equal(await page.locator("details.thinking").count() > 0, true);
	assert.match((await page.locator("details.thinking").last().textContent())!, /considering the numbers/);

	await send('CALL read {"path":"numbers.txt"}');
	await idle();
	const read = page.locator(".tool:not(.bash)").last();
	assert.equal(await read.locator(".tool-name").textContent(), "read");
	const lines = (await read.locator("pre").textContent())!.trim().split("\n");
	assert.equal(lines.length, 6);
	assert.equal(lines.at(-1), "number 20");
	assert.match((await read.locator(".omitted").textContent())!, /14 earlier lines omitted/);
});

test("final replies render markdown with highlighted code and a copy button", async () => {
	await send(`REPLY_JSON ${JSON.stringify("# Title\n\nSome **bold** text and `inline`.\n\n```js\nconst answer = 42; // comment\n```\n\n- one\n- two")}`);
	await idle();
	const reply = page.locator(".msg.assistant").last();
	assert.equal(await reply.locator("strong").textContent(), "bold");
	assert.equal(await reply.locator(".code .tok-keyword").first().textContent(), "const");
	assert.equal(await reply.locator(".code button.copy").count(), 1);
	assert.equal(await reply.locator("li").count(), 2);
});

test("a failed run and a failed command show as error toasts", async () => {
	await send("ERROR 400 the model refused this request");
	await page.waitForSelector(".toast:has-text('run failed')");
	assert.match((await page.locator(".toast").last().textContent())!, /the model refused this request/);
	assert.match((await page.locator(".msg.assistant .note.error").last().textContent())!, /Run failed/);
	for (const close of await page.locator(".toast button").all()) await close.click();
});

test("during a run the Abort button shows and stops it; Enter and the button steer (never a second prompt); Esc stops it", async () => {
	await send("REPLY alpha beta gamma delta epsilon zeta eta theta\nSLOW 300");
	await page.waitForSelector("button.abort");
	await page.click("button.abort");
	await idle();
	assert.match((await page.locator(".msg.assistant .note").last().textContent())!, /Stopped/);
	assert.equal(await page.locator("button.abort").count(), 0);

	const before = sentTypes().length;
	await send("REPLY one two three four five six seven eight nine ten eleven twelve\nSLOW 250");
	await page.waitForSelector("button.abort");
	assert.equal(await page.locator("button.send").textContent(), "Steer");
	await send("REPLY steered");
	await page.locator("textarea").press("Escape");
	await idle();
	const runCommands = sentTypes().slice(before).filter((t) => t === "prompt" || t === "steer" || t === "abort");
	assert.deepEqual(runCommands, ["prompt", "steer", "abort"]);
	assert.equal(await page.locator("button.send").textContent(), "Send");
});

test("a run the service stops at its turn limit says why under its stopped reply", async () => {
	// The limit is lowered from another client, as settings_apply does it for every loaded session.
	const admin = await TestClient.connect(skiff.wsUrl);
	const limit = async (value: number) => {
		const { draftId } = await admin.ok({ type: "settings_open_draft", scope: "global" });
		await admin.ok({ type: "settings_set", draftId, key: "session.maxTurnsPerRun", value });
		await admin.ok({ type: "settings_apply", draftId });
	};
	await limit(2);
	try {
		await send('LOOP_CALL ls {"path": "."}');
		await idle();
		const note = page.locator(".msg.assistant .note").last();
		assert.match((await note.textContent())!, /^Stopped: The run took 2 turns, its limit per run \(session\.maxTurnsPerRun\)/);
	} finally {
		await limit(500);
		admin.close();
	}
});

test("sessions: new, switch back, fork, close and resume from disk", async () => {
	const firstTitle = await page.locator(".session-list li.current .session-title").textContent();
	assert.ok(firstTitle);
	await page.click("button:has-text('New session')");
	await page.waitForSelector(".empty:has-text('Ask the agent')");
	await send("REPLY in the second session");
	await idle();
	assert.equal(await page.locator(".msg.user").count(), 1);

	// Back to the first session: its whole transcript comes from the backend snapshot.
	await page.locator(".session-list li:not(.current) .session-open").first().click();
	await page.waitForFunction(() => document.querySelectorAll(".msg.user").length > 1);
	const userCount = await page.locator(".msg.user").count();

	// Fork before the latest user message: the composer gets its text back.
	await page.locator(".msg.user").last().hover();
	await page.locator(".msg.user .fork").last().click();
	await page.waitForFunction((n) => document.querySelectorAll(".msg.user").length === n - 1, userCount);
	assert.notEqual(await page.inputValue("textarea"), "");

	// Close the second session from the list, then resume it from disk.
	const rows = page.locator(".session-list li", { hasText: "in the second session" });
	await rows.locator("button.close").click();
	await page.waitForFunction(() => ![...document.querySelectorAll(".session-list li")].some((li) => li.textContent?.includes("in the second session") && li.textContent.includes("open")));
	await rows.locator(".session-open").click();
	await page.waitForSelector(".msg.assistant:has-text('in the second session')");

	// Rename shows in the header.
	await page.click("button:has-text('Rename')");
	await page.fill("input[aria-label='Session name']", "Renamed here");
	await page.keyboard.press("Enter");
	await page.waitForSelector(".top .title:has-text('Renamed here')");
});

test("model and thinking dropdowns apply with set_model and set_thinking_level", async () => {
	await page.click("role=tab[name='Settings']");
	await page.selectOption("select >> nth=0", "fake/fake-reasoner");
	await page.waitForSelector(".model-name:has-text('fake-reasoner')");
	await page.selectOption("select >> nth=1", "high");
	await page.waitForFunction(() => (document.querySelectorAll("select")[1] as HTMLSelectElement).value === "high");
	assert.ok(sentTypes().includes("set_model") && sentTypes().includes("set_thinking_level"));
	// The memory backend is a saved setting (settings-panel.test.ts changes it); the panel lists the memory tools.
	assert.equal(await page.inputValue("#setting-memory-backend"), "local");
	await page.waitForSelector(".settings .memory-tools:has-text('Memory tools the agent has now: memory')");
	await page.click("role=tab[name='Sessions']");
});

test("on a phone-width screen the chat fits and the panels open as a drawer", async () => {
	await page.setViewportSize({ width: 390, height: 780 });
	await settled(page); // the drawer's slide transition
	const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
	assert.ok(overflow <= 0, `no horizontal scrolling (${overflow}px)`);
	assert.equal(await page.locator("button.panel-toggle").isVisible(), true);
	const drawerBefore = await page.locator("aside.panels").boundingBox();
	assert.ok(drawerBefore && drawerBefore.x >= 390 - 1, "panels start off-screen");
	await page.click("button.panel-toggle");
	await settled(page);
	const drawer = await page.locator("aside.panels").boundingBox();
	assert.ok(drawer && drawer.x < 390 && drawer.x >= 0, "panels slide in");
	await page.click("button.panel-close");
	assert.equal(await page.locator("textarea").isVisible(), true);
	await page.setViewportSize({ width: 1200, height: 850 });
});
