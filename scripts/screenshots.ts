/**
 * `npm run screenshots`: starts skiff with the fake model on loopback, with realistic recorded sessions, and
 * writes PNGs of the page's main views at desktop (1400×900) and phone (390×844) sizes, in the light and dark
 * themes, into screenshots/ (not committed): chat (and its message actions, a prompt's editor, the branch
 * switcher), sessions, settings (and its pending changes, and its "When a
 * run ends" section), the project picker (and a folder it refuses), the offline screen, session tree
 * (and a search in it), maintenance (and the doctor's checks, and their error when cut off), jobs, personas (a job's detail, a persona
 * opened, the purge confirmation), todo (a task opened, its removal asked), goal and side chat panels, delegation cards (and the jobs' results), the Share dialog and the guest
 * view at its links (control, view, ended, a bad link), phone drawer, shortcut
 * list, session switcher (and panels found by name in it, and sessions by their messages: switcher-text), the panel rail with a badge (jobs finished), a run in progress with a queued steer, the steer returned after a stop, the token
 * prompt, the setup card of a service without a model, a completed workflow (list, detail and its plan), the
 * Files panel with the composer's completions and attachments (screenshot-files.ts), a message's large images
 * loaded as they come into view and their Retry tiles, a tool card showing the picture it read (screenshot-images.ts), and MCP servers (Settings'
 * servers view, the mcpServers JSON editor, a tool card naming its server). Usage: npm run screenshots [-- --only chat]
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, newSession, VIEWPORTS, type Viewport } from "../test/support/browser.js";
import { type FakeOpenAiServer, type RecordedRequest, startFakeOpenAi, writeFakeModelsJson } from "../test/support/fake-openai.js";
import { REPO_ROOT, type SkiffProcess, startSkiff, tempDir } from "../test/support/skiff-process.js";
import { SocketGate } from "../test/support/socket-gate.js";
import { filesViews, writeScreenshotProject } from "./screenshot-files.js";
import { imagesViews, toolImageViews, writeImagesSession, writeToolImageSession } from "./screenshot-images.js";
import { appendScreenshotPlan } from "./screenshot-plan.js";
import { writeScreenshotSessions } from "./screenshot-sessions.js";

const OUT = join(REPO_ROOT, "screenshots");
const SIZES = [
	{ name: "desktop", viewport: { width: 1400, height: 900 }, phone: false },
	{ name: "phone", viewport: { width: 390, height: 844 }, phone: true },
] as const;
const SCHEMES = ["light", "dark"] as const;
type Size = (typeof SIZES)[number];
/** The tests' name for a size, for their helpers. */
const asViewport = (size: Size): Viewport => VIEWPORTS.find((v) => v.name === size.name)!;

/**
 * What the fake model answers to the questions typed in these views, so their bubbles read as people write
 * (the fake model takes its directives from the message text: they are added on the way to it).
 */
const SIDE_QUESTION = "Why does one Chromium per worker save so much?";
const MENTION_QUESTION = "Explain how @src/listener/routes.ts decides what is allowed.";
const SCRIPTED: Record<string, string> = {
	[MENTION_QUESTION]: "REPLY It checks the path against `ROUTES`, and allows only **GET** and **HEAD**: anything else is refused before the request is read.",
	[SIDE_QUESTION]: `REPLY_JSON ${JSON.stringify(
		"Starting Chromium is the expensive part: about **1.2 s** per launch, and each file launched its own.\n\n- 34 files × 1.2 s ≈ 41 s of launches\n- a shared browser pays it once per worker\n\nPages stay isolated: each test still gets a fresh `BrowserContext`.",
	)}`,
};

/** Adds the scripted directives to the last user message of a request, when it is one of SCRIPTED's questions. */
function scriptReplies(request: RecordedRequest): void {
	const messages: Array<{ role: string; content: unknown }> = request.body?.messages ?? [];
	const last = [...messages].reverse().find((m) => m.role === "user");
	if (!last) return;
	const text = typeof last.content === "string" ? last.content : Array.isArray(last.content) ? last.content.map((p: { text?: string }) => p.text ?? "").join("") : "";
	// A question may follow the files it mentions (their `<file>` blocks come first).
	const script = Object.entries(SCRIPTED).find(([question]) => text.trim().endsWith(question))?.[1];
	if (script) last.content = `${text}\n${script}`;
}

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

async function openPage(browser: Browser, url: string, size: Size, scheme: (typeof SCHEMES)[number], before?: (page: Page) => Promise<void>): Promise<Page> {
	const context = await browser.newContext({ viewport: size.viewport, colorScheme: scheme, hasTouch: size.phone, isMobile: size.phone, deviceScaleFactor: size.phone ? 2 : 1 });
	const page = await context.newPage();
	await before?.(page);
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
	writeScreenshotPersonas(agentDir);
	appendScreenshotPlan(agentDir, main);
	writeScreenshotProject(cwd, agentDir);
	writeScreenshotMcpServers(agentDir);
	const images = writeImagesSession(agentDir, cwd);
	const toolImage = writeToolImageSession(agentDir, cwd);
	const skiff = await startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-reasoner", "--thinking", "medium", "--session", main] });
	const page = await openPage(browser, skiff.url, size, scheme);
	try {
		await page.waitForSelector('.pill[data-status="connected"]');
		await page.waitForSelector(".msg.assistant:has-text('one Chromium per worker')");
		await page.waitForSelector(".session-list li.current", { state: "attached" });
		await shot(page, "chat", size, scheme);

		// The message actions: the last answer's footer and times (pointed at), a prompt being edited, and the
		// switcher of the prompt the branch left behind has a sibling of.
		await page.locator(".msg.assistant").last().hover();
		await shot(page, "message-actions", size, scheme);
		await page.locator(".msg.user button.edit").last().click();
		await page.waitForSelector(".msg-editor textarea");
		await shot(page, "message-editor", size, scheme);
		await page.keyboard.press("Escape");
		await page.locator(".branches").scrollIntoViewIfNeeded();
		await page.locator(".msg.user", { has: page.locator(".branches") }).hover();
		await shot(page, "message-switcher", size, scheme);

		await openDrawer(page, size, "sessions");
		await page.click(".segmented button:has-text('All projects')");
		await shot(page, "sessions", size, scheme);
		await page.click(".segmented button:has-text('This project')");
		await openDrawer(page, size, "settings");
		await page.waitForSelector(".setting[data-key='compaction.enabled']");
		await shot(page, "settings", size, scheme);
		await page.locator("h3:has-text('When a run ends')").scrollIntoViewIfNeeded();
		await shot(page, "settings-alerts", size, scheme);
		await mcpViews(page, size, scheme);
		await projectViews(page, size, scheme);
		await todoViews(page, size, scheme);
		await goalViews(page, size, scheme);
		await sideChatViews(page, size, scheme);
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
		// The session list: the job's session folded under the session it worked for, a search, a deletion asked for, the trash.
		await openDrawer(page, size, "sessions");
		await page.click(`.session-list li[data-session-id="${main}"] button[aria-expanded]`);
		await page.waitForSelector(`.session-list li[data-session-id="${main}"] ul li`);
		await shot(page, "sessions-nested", size, scheme);
		await page.fill("input.session-search", "chromium");
		await page.waitForSelector("#session-hits li");
		await shot(page, "session-search", size, scheme);
		await page.fill("input.session-search", "");
		const doomed = page.locator('.session-list li[data-session-id="e2c6a0d8-7f4b-4a1e-9d35-0b8f2c6e4a91"]');
		await doomed.locator("button:has-text('Delete')").click();
		await shot(page, "session-delete", size, scheme);
		await doomed.locator("button:has-text('Move to trash')").click();
		await doomed.waitFor({ state: "detached" });
		await page.click(".segmented button:has-text('Trash')");
		await page.waitForSelector(".session-list li button:has-text('Restore')");
		await shot(page, "session-trash", size, scheme);
		await page.click(".segmented button:has-text('This project')");
		// Personas: the list with counts, one opened (run form and editor), and the purge confirmation.
		await openDrawer(page, size, "personas");
		await page.waitForSelector("#panel-personas .persona-list li:has-text('release-notes')");
		await shot(page, "personas", size, scheme);
		await page.click("#panel-personas .persona-list li:has-text('reviewer') button");
		await page.waitForSelector("#panel-personas textarea[name='persona-content']");
		await shot(page, "persona-detail", size, scheme);
		await page.click("#panel-personas button:has-text('Purge everything…')");
		await page.fill("#panel-personas input[name='purge-confirm']", "review");
		await page.locator("#panel-personas .confirm.strong").scrollIntoViewIfNeeded();
		await shot(page, "persona-purge", size, scheme);
		await page.click("#panel-personas .confirm button:has-text('Cancel')");
		await page.click("#panel-personas button:has-text('Back')");
		// Two pending changes (not applied): the diff pinned under the keys, and a number out of range.
		await openDrawer(page, size, "settings");
		await page.selectOption("#setting-defaultThinkingLevel", "high");
		await page.fill("#setting-compaction-reserveTokens", "32768");
		await page.press("#setting-compaction-reserveTokens", "Enter");
		await page.waitForSelector(".settings-pending .diff li:nth-child(2)", { state: "attached" });
		await page.click(".settings-pending summary"); // one line until opened: the diff, shown here
		await page.fill("#setting-compaction-keepRecentTokens", "0");
		await page.locator(".setting[data-key='compaction.keepRecentTokens']").scrollIntoViewIfNeeded();
		await shot(page, "settings-pending", size, scheme);
		await page.click(".settings-pending button:has-text('Discard')");
		await page.waitForSelector(".settings-pending", { state: "detached" });

		await openDrawer(page, size, "tree");
		await page.waitForSelector(".tree-row.current");
		await shot(page, "tree", size, scheme);
		await page.fill(".tree-search", "test");
		await page.waitForSelector(".tree-row mark");
		await shot(page, "tree-search", size, scheme);
		await page.fill(".tree-search", "");

		await openDrawer(page, size, "maintenance");
		await page.waitForSelector(".panel.maintenance .memory-status");
		await shot(page, "maintenance", size, scheme);
		await page.click(".panel.maintenance button:has-text('Run the checks')");
		await page.waitForSelector(".checks li");
		await page.locator(".panel.maintenance section[aria-label='Doctor']").evaluate((el) => el.scrollIntoView({ block: "start" }));
		await shot(page, "maintenance-doctor", size, scheme);
		await closeDrawer(page, size);
		if (!values.only || "maintenance-doctor-error".includes(values.only)) await doctorErrorView(browser, skiff.url, size, scheme);

		await shareViews(browser, page, size, scheme);

		await page.keyboard.press("Control+/");
		await page.waitForSelector("dialog.shortcuts[open]");
		await shot(page, "shortcuts", size, scheme);
		await page.keyboard.press("Escape");

		// The switcher: sessions by title, panels by name (or group), and sessions by their messages, each with the
		// snippet where the text is.
		for (const [typed, shown, view] of [
			["dark", "dialog.switcher [role='option']", "switcher"],
			["se", "dialog.switcher .panel-option", "switcher-panels"],
			["chromium", "dialog.switcher .snippet mark", "switcher-text"],
		]) {
			await page.keyboard.press("Control+k");
			await page.waitForSelector("dialog.switcher[open]");
			await page.keyboard.type(typed);
			await page.waitForSelector(shown);
			await shot(page, view, size, scheme);
			await page.keyboard.press("Escape");
			// Gone first: a Ctrl+K while it is still closing was sometimes lost. Not only closed: the dialog loses `open`
			// at once, but the page forgets it only at its close event, a task later, which undid a Ctrl+K in between.
			await page.waitForSelector("dialog.switcher", { state: "detached" });
		}

		// Delegation cards in a new session: a batch of two jobs, finished, and the reply to their results.
		await newSession(page, asViewport(size));
		const tasks = [
			{ task: 'CALL yield {"text":"No flaky waits left in test/browser."}', description: "Look for timed waits in the browser tests" },
			{ task: 'CALL yield {"text":"Two findings, both fixed."}', agent: "reviewer", description: "Review the scrolling fix" },
		];
		await page.fill("#composer", `Check the browser tests and review the scrolling fix.\nCALL task ${JSON.stringify({ tasks })}\nAFTER_TOOL Two jobs are on it; I will report when they finish.`);
		await page.keyboard.press("Enter");
		await page.waitForFunction(() => document.querySelectorAll(".tool.delegation li[data-status='completed']").length === 2);
		await page.waitForSelector("[data-run='idle']");
		await shot(page, "delegation", size, scheme);
		// The jobs' results as they reached the session, the last one saying it woke the agent.
		await page.waitForSelector(".job-result .job-woke");
		await page.locator(".job-result").first().evaluate((el) => el.scrollIntoView({ block: "start" }));
		await shot(page, "job-result", size, scheme);
		// The rail with news: the jobs finished while the Sessions panel was shown (on a phone, the Panels button too).
		if (size.phone) await shot(page, "nav-badge-closed", size, scheme);
		await openDrawer(page, size, "sessions");
		await page.waitForSelector("#tab-jobs .rail-badge");
		await page.hover("#tab-jobs");
		await shot(page, "nav-badge", size, scheme);
		await closeDrawer(page, size);

		// A run in progress in a new session: a tool runs, and a steer waits for the agent.
		await newSession(page, asViewport(size));
		await page.fill("#composer", "Time the browser tests once more.\nRUN sleep 30");
		await page.keyboard.press("Enter");
		await page.waitForSelector(".working:has-text('Running bash')");
		await page.fill("#composer", "Then run the integration tests too.");
		await page.keyboard.press("Enter");
		await page.waitForSelector(".msg.pending");
		await shot(page, "running", size, scheme);
		await openDrawer(page, size, "sessions");
		await page.waitForSelector(".session-list li.current .job-status.running");
		await shot(page, "sessions-live", size, scheme);
		if (size.phone) await page.click("button.panel-close");
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

		// A tool card of an MCP tool: the server's name, then the tool's own.
		await page.fill("#composer", `Which issues about flaky tests are open?\nCALL mcp__tracker__echo {"text":"3 open: #41 scrolling, #57 timers, #63 ports"}\nAFTER_TOOL Three are open: #41, #57 and #63.`);
		await page.keyboard.press("Enter");
		await page.waitForSelector(".tool[data-state='done'] .tag:has-text('tracker')");
		await page.waitForSelector("[data-run='idle']");
		await shot(page, "mcp-tool", size, scheme);

		// A session without a plan or a goal: their empty panels, with the forms to start them.
		await openDrawer(page, size, "todo");
		await page.waitForSelector(".todo .empty-state");
		await shot(page, "todo-empty", size, scheme);
		await openDrawer(page, size, "goal");
		await page.waitForSelector(".goal-create");
		await shot(page, "goal-empty", size, scheme);
		await filesViews(page, (id) => openDrawer(page, size, id), () => closeDrawer(page, size), (view) => shot(page, view, size, scheme));
		if (!values.only || "user-images".includes(values.only)) await imagesViews(page, images, (view) => shot(page, view, size, scheme));
		if (!values.only || "tool-image".includes(values.only)) await toolImageViews(page, toolImage, (view) => shot(page, view, size, scheme));

		// The installed page opened while the service is down: the service worker's screen.
		if (!values.only || "offline".includes(values.only)) {
			await page.evaluate(() => navigator.serviceWorker.ready);
			await skiff.stop();
			await page.reload();
			await page.waitForSelector("h1:has-text('The service is not reachable')");
			await shot(page, "offline", size, scheme);
		}
	} catch (error) {
		await pictureFailure([page]);
		throw error;
	} finally {
		await page.context().close();
		await skiff.stop();
		rmSync(agentDir, { recursive: true, force: true });
	}
}

/** The doctor's checks cut off (the connection dropped while it checked): the error the panel ends in. */
async function doctorErrorView(browser: Browser, url: string, size: Size, scheme: (typeof SCHEMES)[number]): Promise<void> {
	const gate = new SocketGate();
	gate.holdAnswersTo = (command) => command === "doctor";
	const page = await openPage(browser, url, size, scheme, (p) => gate.attach(p));
	try {
		await page.waitForSelector('.pill[data-status="connected"]');
		await openDrawer(page, size, "maintenance");
		await page.waitForSelector(".panel.maintenance .memory-status");
		await page.click(".panel.maintenance button:has-text('Run the checks')");
		await page.waitForSelector(".panel.maintenance button:has-text('Checking…')");
		while (gate.holding === 0) await new Promise((resolve) => setTimeout(resolve, 20));
		await gate.drop();
		await page.waitForSelector(".panel.maintenance section[aria-label='Doctor'] .error-text");
		await page.waitForSelector('.pill[data-status="connected"]');
		await page.waitForSelector(".toast", { state: "detached" });
		await page.locator(".panel.maintenance section[aria-label='Doctor']").evaluate((el) => el.scrollIntoView({ block: "start" }));
		await shot(page, "maintenance-doctor-error", size, scheme);
	} finally {
		await page.context().close();
	}
}

/** Settings' MCP servers: one ready with its tools opened, one that failed to start, one disabled. */
async function mcpViews(page: Page, size: Size, scheme: string): Promise<void> {
	await page.waitForSelector(".mcp-server[data-server='tracker'][data-state='ready']");
	await page.waitForSelector(".mcp-server[data-server='db'][data-state='failed']");
	await page.click(".mcp-server[data-server='tracker'] summary:has-text('tools')");
	await page.locator("h3:has-text('MCP servers')").evaluate((el) => el.scrollIntoView({ block: "start" }));
	await shot(page, "settings-mcp", size, scheme);
	await page.locator("#setting-mcpServers").scrollIntoViewIfNeeded();
	await shot(page, "settings-mcp-json", size, scheme);
	await page.click(".mcp-server[data-server='tracker'] summary:has-text('tools')");
}

/** MCP servers for the settings: the suite's own stdio server (ready), a program that is not there, and one turned off. */
function writeScreenshotMcpServers(agentDir: string): void {
	const server = { command: process.execPath, args: [join(REPO_ROOT, "test", "support", "mcp", "stdio-server.mjs")] };
	const mcpServers = {
		tracker: { ...server, env: { LOG_LEVEL: "warn", API_KEY: "tracker-literal-key-0000" } },
		db: { command: "/usr/local/bin/db-mcp", args: ["--read-only"] },
		browser: { ...server, enabled: false },
	};
	writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ mcpServers }, null, 2));
}

/** The project picker (the Sessions panel's New in…): the projects with sessions, then a folder it refuses. */
async function projectViews(page: Page, size: Size, scheme: string): Promise<void> {
	if (values.only && !"projects-error".includes(values.only)) return;
	await openDrawer(page, size, "sessions");
	await page.click("button:has-text('New in…')");
	await page.waitForSelector("dialog.projects .project-list li");
	await shot(page, "projects", size, scheme);
	await page.fill("dialog.projects input", "/home/dev/projects/old-site");
	await page.keyboard.press("Enter");
	await page.waitForSelector("#projects-error:not(:empty)");
	await shot(page, "projects-error", size, scheme);
	await page.keyboard.press("Escape");
	await page.waitForSelector("dialog.projects", { state: "detached" });
}

/** Two personas of the user, with memory entries and archived runs, for the Personas panel. */
function writeScreenshotPersonas(agentDir: string): void {
	const personas = [
		{ name: "reviewer", description: "Reviews a change and lists concrete problems", model: "fake/fake-reasoner", memory: 14, sessions: 6, prompt: "You review code. Read what you are pointed at, list problems with file and line, and yield the list." },
		{ name: "release-notes", description: "Writes release notes from the merged changes", memory: 3, sessions: 1, prompt: "You write short release notes for users, grouped by area." },
	];
	for (const p of personas) {
		const root = join(agentDir, "personas", p.name);
		mkdirSync(join(root, "memory"), { recursive: true });
		mkdirSync(join(root, "sessions"), { recursive: true });
		const model = p.model ? `model: ${p.model}\n` : "";
		writeFileSync(join(root, "persona.md"), `---\nname: ${p.name}\ndescription: ${p.description}\n${model}tools: [read, grep, find]\n---\n${p.prompt}\n`);
		const entries = Array.from({ length: p.memory }, (_, i) => JSON.stringify({ id: `m${i}`, content: `note ${i}`, ts: Date.UTC(2025, 0, 1 + i), session: "s" }));
		writeFileSync(join(root, "memory", "entries.jsonl"), `${entries.join("\n")}\n`);
		for (let i = 0; i < p.sessions; i++) writeFileSync(join(root, "sessions", `2025-01-0${i + 1}T10-00-00-000Z_job-${i}.jsonl`), "");
	}
}

/** The todo panel with a plan in every state, then one blocked task opened. */
async function todoViews(page: Page, size: Size, scheme: string): Promise<void> {
	await openDrawer(page, size, "todo");
	await page.waitForSelector(".todo-task[data-id='t8']");
	await shot(page, "todo", size, scheme);
	await page.click(".todo-task[data-id='t7'] .todo-open");
	await page.waitForSelector("#todo-detail-t7");
	await page.evaluate(() => document.querySelector(".todo-task[data-id='t7']")!.scrollIntoView({ block: "center" }));
	await shot(page, "todo-task", size, scheme);
	await page.click("#todo-detail-t7 button:has-text('Remove…')");
	await page.waitForSelector("#todo-detail-t7 .todo-confirm");
	await shot(page, "todo-remove", size, scheme);
	await page.click("#todo-detail-t7 .todo-confirm button:has-text('Keep')");
	await page.click(".todo-task[data-id='t7'] .todo-open");
}

/** The goal panel: paused when the session was opened again, then resumed. */
async function goalViews(page: Page, size: Size, scheme: string): Promise<void> {
	await openDrawer(page, size, "goal");
	await page.waitForSelector(".goal-card[data-lifecycle='paused']");
	await page.waitForSelector(".goal-events li");
	await shot(page, "goal-paused", size, scheme);
	await page.uncheck("input[name='goal-resume-activate']");
	await page.click(".goal-resume button:has-text('Resume')");
	await page.waitForSelector(".goal-card[data-lifecycle='active']");
	await page.waitForSelector(".goal-events li[data-kind='resumed']");
	await shot(page, "goal", size, scheme);
}

/** The side chat panel: empty, then two tabs, one with a question answered beside the conversation. */
async function sideChatViews(page: Page, size: Size, scheme: string): Promise<void> {
	await openDrawer(page, size, "side-chat");
	await page.waitForSelector(".side-chat .empty-state");
	await shot(page, "side-chat-empty", size, scheme);
	await page.fill("input[name='side-chat-name']", "naming");
	await page.click("button:has-text('Open tab')");
	await page.waitForSelector(".side-tabs li.current[data-tab='naming']");
	await page.click(".side-chat button:has-text('New tab')");
	await page.fill("input[name='side-chat-name']", "why");
	await page.click("button:has-text('Open tab')");
	await page.waitForSelector(".side-tabs li.current[data-tab='why']");
	await page.fill(".side-box textarea", SIDE_QUESTION);
	await page.press(".side-box textarea", "Enter");
	await page.waitForSelector(".side-transcript .msg.assistant:not(.streaming) li");
	await page.fill(".side-box textarea", "And the parser fixtures?");
	await shot(page, "side-chat", size, scheme);
	await page.fill(".side-box textarea", "");
}

/** The Share dialog before and while sharing, and the guest view at its links (control, view, ended, a bad link). */
async function shareViews(browser: Browser, host: Page, size: Size, scheme: (typeof SCHEMES)[number]): Promise<void> {
	await host.click("button.share-button");
	await host.waitForSelector("dialog.share[open]");
	await shot(host, "share-start", size, scheme);
	await host.click("dialog.share button:has-text('Start sharing')");
	await host.waitForSelector("dialog.share #share-control");
	const guestAt = async (link: string) => {
		const context = await browser.newContext({ viewport: size.viewport, colorScheme: scheme, hasTouch: size.phone, isMobile: size.phone, deviceScaleFactor: size.phone ? 2 : 1 });
		const page = await context.newPage();
		await page.goto(link);
		return page;
	};
	const control = await guestAt(await host.inputValue("#share-control"));
	const view = await guestAt(await host.inputValue("#share-view"));
	try {
		await control.waitForSelector(".guest .pill[data-status='connected']");
		await control.waitForSelector(".msg.assistant:has-text('one Chromium per worker')");
		await view.waitForSelector(".guest .pill[data-status='connected']");
		await host.waitForSelector("dialog.share .share-count li[data-role='view']:has-text('1')");
		await shot(host, "share", size, scheme);
		await shot(control, "guest-control", size, scheme);
		await shot(view, "guest-view", size, scheme);
		await host.click("dialog.share button:has-text('Stop sharing')");
		await view.waitForSelector(".guest[data-status='ended']");
		await shot(view, "guest-ended", size, scheme);
		await host.keyboard.press("Escape");
		await view.goto(`${new URL(host.url()).origin}/collab/ws/${"A".repeat(22)}`);
		await view.waitForSelector(".guest-card");
		await shot(view, "guest-bad-link", size, scheme);
	} finally {
		await control.context().close();
		await view.context().close();
	}
}

/** A workflow in a temporary git repository, followed to completed with its integration summary. */
async function workflowView(browser: Browser, skiff: SkiffProcess, size: Size, scheme: (typeof SCHEMES)[number]): Promise<void> {
	if (values.only && !["workflows", "workflow-detail", "workflow-plan"].some((view) => view.includes(values.only!))) return;
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
		await page.locator("#panel-workflows .workflow-plan").scrollIntoViewIfNeeded();
		await shot(page, "workflow-plan", size, scheme);
		await page.click("#panel-workflows button:has-text('Back')");
		await shot(page, "workflows", size, scheme);
	} finally {
		await page.context().close();
	}
}

/** Edit and write cards with their diffs, and the Changes panel: a diff, a comment being written, a pending review; side by side. */
async function changesView(browser: Browser, skiff: SkiffProcess, repo: string, size: Size, scheme: (typeof SCHEMES)[number]): Promise<void> {
	if (values.only && !["diff-cards", "changes-panel", "changes-split"].some((view) => view.includes(values.only!))) return;
	const page = await openPage(browser, skiff.url, size, scheme);
	try {
		const file = `src/${size.name}-${scheme}/retry.ts`;
		mkdirSync(join(repo, dirname(file)), { recursive: true });
		writeFileSync(join(repo, file), 'import { sleep } from "./sleep";\n\nexport const RETRIES = 3;\n\nexport async function retry(run: () => Promise<void>) {\n\tfor (let n = 0; n < RETRIES; n++) {\n\t\ttry {\n\t\t\treturn await run();\n\t\t} catch {\n\t\t\tawait sleep(100);\n\t\t}\n\t}\n}\n');
		const calls = [
			`CALL edit ${JSON.stringify({ path: file, edits: [{ oldText: "await sleep(100);", newText: "// Back off: 100 ms, 200 ms, 400 ms.\n\t\t\tawait sleep(100 * 2 ** n);" }, { oldText: "RETRIES = 3", newText: "RETRIES = 5" }] })}`,
			`CALL write ${JSON.stringify({ path: `notes/${size.name}-${scheme}.md`, content: "# Retries\n\nFive tries, doubling the wait.\n" })}`,
		];
		await page.waitForSelector('.pill[data-status="connected"]');
		await newSession(page, asViewport(size));
		await page.fill("#composer", `Make the retries back off.\n${calls.join("\n")}\nAFTER_TOOL Retries now back off, doubling the wait; the notes say so.`);
		await page.keyboard.press("Enter");
		await page.waitForSelector(".msg.assistant:has-text('doubling the wait;')");
		await page.locator(".tool .dv").first().scrollIntoViewIfNeeded();
		await shot(page, "diff-cards", size, scheme);
		await openDrawer(page, size, "changes");
		await page.click(`.change-list button:has-text('${size.name}-${scheme}/retry.ts')`);
		await page.click(".file-change .dg[aria-label='Comment on line 3']");
		await page.fill("textarea[name='review-comment']", "Make the count a setting.");
		await page.click("button:has-text('Add to review')");
		await page.click(".file-change .dg[aria-label='Comment on line 10']");
		await page.click(".file-change .dg[aria-label='Comment on line 11']", { modifiers: ["Shift"] });
		await page.fill("textarea[name='review-comment']", "Cap the wait at a few seconds.");
		await page.locator(".file-change").evaluate((el) => el.scrollIntoView({ block: "start" }));
		await shot(page, "changes-panel", size, scheme);
		if (!size.phone) {
			await page.click(".file-change button:has-text('Side by side')");
			await shot(page, "changes-split", size, scheme);
		}
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

/**
 * On a failure, what each page showed (failed-<n>.png beside the views) and the text of any dialog open in it,
 * to see why a wait ran out.
 */
let failures = 0;
async function pictureFailure(pages: Page[]): Promise<void> {
	for (const page of pages) {
		if (page.isClosed()) continue;
		const file = join(OUT, `failed-${++failures}.png`);
		if (await page.screenshot({ path: file }).then(() => true, () => false)) process.stderr.write(`what ${page.url()} showed: ${file}\n`);
		const dialog = await page.locator("dialog[open]").first().innerText({ timeout: 1000 }).catch(() => undefined);
		if (dialog !== undefined) process.stderr.write(`its open dialog read: ${JSON.stringify(dialog)}\n`);
	}
}

async function main(): Promise<void> {
	rmSync(OUT, { recursive: true, force: true });
	mkdirSync(OUT, { recursive: true });
	const browser = await launchBrowser();
	const model = await startFakeOpenAi({ onRequest: scriptReplies });
	const tokenDir = tempDir();
	writeFileSync(join(tokenDir, "token"), "screenshot-token", { mode: 0o600 });
	const tokenSkiff = await startSkiff({ agentDir: tempDir(), args: ["--listen-token-file", join(tokenDir, "token")] });
	const bareSkiff = await startSkiff({ agentDir: tempDir(), cwd: tempDir() });
	const workflowSkiff = await startSkiff({ agentDir: modelDir(model), cwd: gitRepository(), args: ["--model", "fake/fake-model"] });
	const changesRepo = gitRepository();
	const changesSkiff = await startSkiff({ agentDir: modelDir(model), cwd: changesRepo, args: ["--model", "fake/fake-model"] });
	try {
		for (const size of SIZES) {
			for (const scheme of SCHEMES) {
				await conversationViews(browser, model, size, scheme);
				await tokenView(browser, tokenSkiff, size, scheme);
				await noModelView(browser, bareSkiff, size, scheme);
				await workflowView(browser, workflowSkiff, size, scheme);
				await changesView(browser, changesSkiff, changesRepo, size, scheme);
				process.stderr.write(`${size.name} ${scheme} done\n`);
			}
		}
	} catch (error) {
		await pictureFailure(browser.contexts().flatMap((context) => context.pages()));
		throw error;
	} finally {
		await browser.close();
		await tokenSkiff.stop();
		await bareSkiff.stop();
		await workflowSkiff.stop();
		await changesSkiff.stop();
		await model.close();
	}
	console.log(`${written} screenshots in ${OUT}`);
}

await main();
