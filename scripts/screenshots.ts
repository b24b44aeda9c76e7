/**
 * `npm run screenshots`: starts skiff with the fake model on loopback, with realistic recorded sessions, and
 * writes PNGs of the page's main views at desktop (1400×900) and phone (390×844) sizes, in the light and dark
 * themes, into screenshots/ (not committed): chat, sessions and settings panels, phone drawer, shortcut list,
 * session switcher, a run in progress with a queued steer, the steer returned after a stop, the token prompt,
 * the setup card of a service without a model, and a completed workflow (list and detail). Usage: npm run screenshots [-- --only chat]
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../test/support/browser.js";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../test/support/fake-openai.js";
import { REPO_ROOT, type SkiffProcess, startSkiff, tempDir } from "../test/support/skiff-process.js";
import { writeScreenshotSessions } from "./screenshot-sessions.js";

const OUT = join(REPO_ROOT, "screenshots");
const SIZES = [
	{ name: "desktop", viewport: { width: 1400, height: 900 }, phone: false },
	{ name: "phone", viewport: { width: 390, height: 844 }, phone: true },
] as const;
const SCHEMES = ["light", "dark"] as const;
type Size = (typeof SIZES)[number];

const { values } = parseArgs({ options: { only: { type: "string" } } });
let written = 0;

async function shot(page: Page, view: string, size: Size, scheme: string): Promise<void> {
	if (values.only && !view.includes(values.only)) return;
	// Let transitions (the drawer's slide, a dialog's fade) finish: two frames after the animations settle.
	await page.evaluate(() => Promise.all(document.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Infinity).map((a) => a.finished.catch(() => undefined))));
	await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
	const file = join(OUT, `${view}-${size.name}-${scheme}.png`);
	await page.screenshot({ path: file });
	written++;
}

async function openPage(browser: Browser, url: string, size: Size, scheme: (typeof SCHEMES)[number]): Promise<Page> {
	const context = await browser.newContext({ viewport: size.viewport, colorScheme: scheme, hasTouch: size.phone, isMobile: size.phone, deviceScaleFactor: size.phone ? 2 : 1 });
	const page = await context.newPage();
	await page.goto(`${url}/web`);
	return page;
}

async function openDrawer(page: Page, size: Size, tab: string): Promise<void> {
	if (size.phone && !(await page.locator(".app.panel-open").count())) await page.click("button.panel-toggle");
	await page.click(`#tab-${tab}`);
}

async function closeDrawer(page: Page, size: Size): Promise<void> {
	await page.click("#tab-sessions");
	if (size.phone) await page.click("button.panel-close");
}

/** The views of a service with models and sessions. */
async function conversationViews(browser: Browser, model: FakeOpenAiServer, size: Size, scheme: (typeof SCHEMES)[number]): Promise<void> {
	const agentDir = tempDir("skiff-shots-");
	const cwd = join(tempDir(), "projects", "skiff");
	mkdirSync(cwd, { recursive: true });
	writeFakeModelsJson(agentDir, model.url);
	const { main } = writeScreenshotSessions(agentDir, cwd, "/home/dev/projects/website");
	const skiff = await startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-reasoner", "--thinking", "medium", "--session", main] });
	const page = await openPage(browser, skiff.url, size, scheme);
	try {
		await page.waitForSelector('.pill[data-status="connected"]');
		await page.waitForSelector(".msg.assistant:has-text('one Chromium per worker')");
		await page.waitForSelector(".session-list li.current", { state: "attached" });
		await shot(page, "chat", size, scheme);

		await openDrawer(page, size, "sessions");
		await page.click(".segmented button:has-text('All projects')");
		await shot(page, "sessions", size, scheme);
		await page.click(".segmented button:has-text('This project')");
		await openDrawer(page, size, "settings");
		await page.waitForSelector(".settings select[name='memory']");
		await shot(page, "settings", size, scheme);
		// Jobs: one finished job, opened with its transcript and output, after the list.
		await openDrawer(page, size, "jobs");
		await page.fill("#panel-jobs textarea[name='task']", 'Check the flaky test.\nCALL yield {"text":"The flaky test waited on a timer; it now awaits the event."}');
		await page.click("#panel-jobs button[type='submit']");
		await page.waitForSelector("#panel-jobs .job-list li[data-status='completed']");
		await shot(page, "jobs", size, scheme);
		await page.click("#panel-jobs .job-list li button");
		await page.waitForSelector("#panel-jobs .job-output");
		await shot(page, "job-detail", size, scheme);
		await page.click("#panel-jobs button:has-text('Back')");
		await closeDrawer(page, size);

		await page.keyboard.press("Control+/");
		await page.waitForSelector("dialog.shortcuts[open]");
		await shot(page, "shortcuts", size, scheme);
		await page.keyboard.press("Escape");

		await page.keyboard.press("Control+k");
		await page.waitForSelector("dialog.switcher[open]");
		await page.keyboard.type("dark");
		await shot(page, "switcher", size, scheme);
		await page.keyboard.press("Escape");

		// A run in progress in a new session: a tool runs, and a steer waits for the agent.
		await openDrawer(page, size, "sessions");
		await page.click("button:has-text('New session')");
		await page.waitForSelector(".empty:has-text('Ask the agent')");
		await page.fill("#composer", "Time the browser tests once more.\nRUN sleep 30");
		await page.keyboard.press("Enter");
		await page.waitForSelector(".working:has-text('Running bash')");
		await page.fill("#composer", "Then run the integration tests too.");
		await page.keyboard.press("Enter");
		await page.waitForSelector(".msg.pending");
		await shot(page, "running", size, scheme);
		await page.click("button.abort");
		await page.waitForSelector("[data-run='idle']");

		// A steer that waits while a reply streams, then a stop: the steer comes back to the message box.
		await page.fill("#composer", "Summarize what changed.\nREPLY The browser tests now share one Chromium per worker, and the suite takes 58 s instead of 112 s.\nSLOW 400");
		await page.keyboard.press("Enter");
		await page.waitForSelector(".msg.assistant.streaming:has-text('browser')");
		await page.fill("#composer", "Keep it to two bullet points.");
		await page.keyboard.press("Enter");
		await page.waitForSelector(".msg.pending");
		await page.click("button.abort");
		await page.waitForSelector(".composer-note");
		await shot(page, "returned", size, scheme);
	} finally {
		await page.context().close();
		await skiff.stop();
		rmSync(agentDir, { recursive: true, force: true });
	}
}

/** A workflow in a temporary git repository, followed to completed with its integration summary. */
async function workflowView(browser: Browser, skiff: SkiffProcess, size: Size, scheme: (typeof SCHEMES)[number]): Promise<void> {
	if (values.only && !["workflows", "workflow-detail"].some((view) => view.includes(values.only!))) return;
	const page = await openPage(browser, skiff.url, size, scheme);
	try {
		await page.waitForSelector('.pill[data-status="connected"]');
		await page.fill("#composer", "REPLY Ready.");
		await page.keyboard.press("Enter");
		await page.waitForSelector(".msg.assistant:has-text('Ready.')");
		await openDrawer(page, size, "workflows");
		const tag = `${size.name}-${scheme}`;
		const write = (path: string, content: string) => `CALL write ${JSON.stringify({ path, content })}`;
		const list = [
			{ phase: "Notes", items: [write(`notes/${tag}/retry.md`, "Retry with backoff.\n")] },
			{ phase: "Code", items: [write(`src/${tag}/retry.ts`, "export const RETRIES = 3;\n"), write(`src/${tag}/limits.ts`, "export const LIMIT = 10;\n")] },
		];
		await page.fill("#panel-workflows input[name='name']", "retry policy");
		await page.fill("#panel-workflows textarea[name='objective']", `Write down the retry policy, then add its constants.\nCALL todo ${JSON.stringify({ op: "init", list })}\nAFTER_TOOL Planned.`);
		await page.click("#panel-workflows button[type='submit']");
		await page.waitForSelector("#panel-workflows .workflow-summary .workflow-status.completed");
		await shot(page, "workflow-detail", size, scheme);
		await page.click("#panel-workflows button:has-text('Back')");
		await shot(page, "workflows", size, scheme);
	} finally {
		await page.context().close();
	}
}

async function tokenView(browser: Browser, skiff: SkiffProcess, size: Size, scheme: (typeof SCHEMES)[number]): Promise<void> {
	const page = await openPage(browser, skiff.url, size, scheme);
	await page.waitForSelector("input[aria-label='Access token']");
	await shot(page, "token", size, scheme);
	await page.fill("input[aria-label='Access token']", "not-the-token");
	await page.click("button:has-text('Connect')");
	await page.waitForSelector(".connection .detail:has-text('token was refused')");
	await shot(page, "token-refused", size, scheme);
	await page.context().close();
}

async function noModelView(browser: Browser, skiff: SkiffProcess, size: Size, scheme: (typeof SCHEMES)[number]): Promise<void> {
	const page = await openPage(browser, skiff.url, size, scheme);
	await page.waitForSelector(".setup-card");
	await page.fill("#composer", "Hello?");
	await page.keyboard.press("Enter");
	await page.waitForSelector(".setup-card code:has-text('/auth.json')");
	await shot(page, "no-model", size, scheme);
	await page.context().close();
}

/** An agent directory whose models are the fake model's. */
function modelDir(model: FakeOpenAiServer): string {
	const dir = tempDir("skiff-shots-");
	writeFakeModelsJson(dir, model.url);
	return dir;
}

/** A temporary git repository with one commit (a workflow's branch starts from it). */
function gitRepository(): string {
	const dir = tempDir("skiff-shots-repo-");
	const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=Dev", "-c", "user.email=dev@example.com", ...args], { cwd: dir });
	git("init", "-q", "-b", "main");
	writeFileSync(join(dir, "README.md"), "# service\n");
	git("add", "-A");
	git("commit", "-q", "-m", "first");
	return dir;
}

async function main(): Promise<void> {
	rmSync(OUT, { recursive: true, force: true });
	mkdirSync(OUT, { recursive: true });
	const browser = await launchBrowser();
	const model = await startFakeOpenAi();
	const tokenDir = tempDir();
	writeFileSync(join(tokenDir, "token"), "screenshot-token", { mode: 0o600 });
	const tokenSkiff = await startSkiff({ agentDir: tempDir(), args: ["--listen-token-file", join(tokenDir, "token")] });
	const bareSkiff = await startSkiff({ agentDir: tempDir(), cwd: tempDir() });
	const workflowSkiff = await startSkiff({ agentDir: modelDir(model), cwd: gitRepository(), args: ["--model", "fake/fake-model"] });
	try {
		for (const size of SIZES) {
			for (const scheme of SCHEMES) {
				await conversationViews(browser, model, size, scheme);
				await tokenView(browser, tokenSkiff, size, scheme);
				await noModelView(browser, bareSkiff, size, scheme);
				await workflowView(browser, workflowSkiff, size, scheme);
				process.stderr.write(`${size.name} ${scheme} done\n`);
			}
		}
	} finally {
		await browser.close();
		await tokenSkiff.stop();
		await bareSkiff.stop();
		await workflowSkiff.stop();
		await model.close();
	}
	console.log(`${written} screenshots in ${OUT}`);
}

await main();
