/** Debian's Chromium driven by playwright-core, with the flags this workplace needs (no background network). */
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { type FakeOpenAiOptions, type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "./fake-openai.js";
import { redactSecrets } from "../../src/shared/redact.js";
import { type SkiffProcess, startSkiff, tempDir } from "./skiff-process.js";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Chromium's features the tests turn off, for the CPU they cost and no test needs: each window (one per browser
 * context, so one per page a test opens) started a renderer for its omnibox's two popups (chrome://omnibox-popup,
 * WebUI that new headless Chromium builds though nothing shows it), about as costly as the page's own. Off, a
 * page opened and used costs about a third less of Chromium's CPU (docs/testing.md).
 */
export const DISABLED_CHROMIUM_FEATURES = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"];

/** Merges this list with playwright-core's own `--disable-features` (Chromium reads only the last one given). */
const CHROMIUM_LAUNCHER = fileURLToPath(new URL("./chromium.sh", import.meta.url));

export function launchBrowser(): Promise<Browser> {
	return chromium.launch({
		executablePath: CHROMIUM_LAUNCHER,
		env: { ...process.env, SKIFF_CHROMIUM_BINARY: CHROMIUM_PATH },
		headless: true,
		args: [
			"--headless",
			"--no-sandbox",
			"--disable-gpu",
			"--no-first-run",
			"--disable-background-networking",
			"--disable-component-update",
			"--disable-sync",
			"--disable-quic",
			`--disable-features=${DISABLED_CHROMIUM_FEATURES.join(",")}`,
		],
	});
}

/** A chat page in Chromium, connected to a real skiff with the fake model. */
export interface ChatPage {
	model: FakeOpenAiServer;
	skiff: SkiffProcess;
	browser: Browser;
	page: Page;
	/** Every URL the page requested. */
	requests: string[];
	close(): Promise<void>;
}

/**
 * Starts the fake model and skiff (with `args`, in `cwd`), opens /web in Chromium and waits until the page
 * is connected. `watch` attaches listeners before the page loads.
 */
export async function openChatPage(options: { args: string[]; cwd?: string; viewport?: { width: number; height: number }; watch?: (page: Page) => void }): Promise<ChatPage> {
	const model = await startFakeOpenAi();
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	const skiff = await startSkiff({ agentDir, cwd: options.cwd ?? tempDir(), args: options.args });
	const browser = await launchBrowser();
	const page = await browser.newPage(options.viewport ? { viewport: options.viewport } : {});
	const requests: string[] = [];
	page.on("request", (r) => requests.push(r.url()));
	options.watch?.(page);
	await page.goto(`${skiff.url}/web`);
	await page.waitForSelector('.pill[data-status="connected"]');
	return {
		model,
		skiff,
		browser,
		page,
		requests,
		close: async () => {
			await browser.close();
			await skiff.stop();
			await model.close();
		},
	};
}

/** The two sizes every page test runs at: a desktop window and a phone (touch, mobile viewport). */
export const VIEWPORTS = [
	{ name: "desktop", width: 1400, height: 900, phone: false },
	{ name: "phone", width: 390, height: 844, phone: true },
] as const;
export type Viewport = (typeof VIEWPORTS)[number];

/** The fake model and a skiff using it (its models.json is left out with `models: false`). */
export interface ChatService {
	model: FakeOpenAiServer;
	skiff: SkiffProcess;
	agentDir: string;
	cwd: string;
	close(): Promise<void>;
}

export interface ChatServiceOptions {
	args?: string[];
	cwd?: string;
	agentDir?: string;
	models?: boolean;
	listen?: string;
	env?: Record<string, string>;
	onModelRequest?: FakeOpenAiOptions["onRequest"];
}

export async function startChatService(options: ChatServiceOptions = {}): Promise<ChatService> {
	const model = await startFakeOpenAi({ onRequest: options.onModelRequest });
	const agentDir = options.agentDir ?? tempDir();
	if (options.models !== false) writeFakeModelsJson(agentDir, model.url);
	const cwd = options.cwd ?? tempDir();
	const skiff = await startSkiff({ agentDir, cwd, args: options.args ?? (options.models === false ? [] : ["--model", "fake/fake-model"]), listen: options.listen, env: options.env });
	return {
		model,
		skiff,
		agentDir,
		cwd,
		close: async () => {
			await skiff.stop();
			await model.close();
		},
	};
}

/**
 * Waits for starts made at once (Chromium's and a service's take about as long, each mostly waiting), then fails
 * with the first that failed: only once all have settled, so that each start that succeeded has been kept
 * (by its `.then`) for the file's `after` hook to close, and no process outlives the file.
 */
export async function allStarted(starts: Array<Promise<unknown>>): Promise<void> {
	for (const started of await Promise.allSettled(starts)) if (started.status === "rejected") throw started.reason;
}

/** A test file's browser and chat service: set once its `before` hook ran. */
export interface ChatFixture {
	browser: Browser;
	service: ChatService;
}

/**
 * Starts Chromium and a chat service together before the file's tests (`options` may be a function, called then,
 * to prepare an agent directory first) and closes both after them.
 */
export function useChatService(options: ChatServiceOptions | (() => ChatServiceOptions) = {}): ChatFixture {
	const fixture = {} as ChatFixture;
	before(() =>
		allStarted([launchBrowser().then((browser) => (fixture.browser = browser)), startChatService(typeof options === "function" ? options() : options).then((service) => (fixture.service = service))]),
	);
	after(async () => {
		await fixture.browser?.close();
		await fixture.service?.close();
	});
	return fixture;
}

/**
 * A page in a context of its own (its own sessionStorage, so it binds to the primary session) at `viewport`,
 * on `url`/web, waiting until it is connected unless `connected: false`.
 */
export async function openPage(
	browser: Browser,
	url: string,
	viewport: Viewport,
	options: { connected?: boolean; reducedMotion?: "reduce" | "no-preference"; before?: (page: Page) => void | Promise<void> } = {},
): Promise<Page> {
	const context = await browser.newContext({
		viewport: { width: viewport.width, height: viewport.height },
		hasTouch: viewport.phone,
		isMobile: viewport.phone,
		reducedMotion: options.reducedMotion ?? "no-preference",
	});
	// tsx compiles named functions inside page.evaluate callbacks with a `__name` helper the page lacks.
	await context.addInitScript({ content: "globalThis.__name = (fn) => fn;" });
	const page = await context.newPage();
	await options.before?.(page);
	await page.goto(`${url}/web`);
	if (options.connected !== false) await page.waitForSelector('.pill[data-status="connected"]');
	return page;
}

/**
 * Waits until the page is connected again to a service that is back at its address: it presses Retry now
 * whenever the page shows it, as a user would, instead of waiting for the page's own next attempt (its backoff
 * grows to 15 s, so a restart that outlasted one attempt cost seconds of waiting). The reconnection is the page's
 * own either way; a page that reconnects before the button shows simply connects.
 */
export async function reconnected(page: Page): Promise<void> {
	await page.waitForFunction(
		() => {
			if (document.querySelector('.pill[data-status="connected"]')) return true;
			(document.querySelector("button.retry") as HTMLButtonElement | null)?.click(); // a DOM click: on a phone the drawer may cover the bar
			return false;
		},
		undefined,
		{ polling: 100, timeout: 30_000 },
	);
}

/** Types `text` into the message box and presses Enter (a prompt while idle, a steer during a run). */
export async function typeAndSend(page: Page, text: string): Promise<void> {
	await page.fill("#composer", text);
	await page.press("#composer", "Enter");
}

/**
 * Sends a prompt and waits until its run has ended (its user message shown, the page idle again).
 * The prompt's message is known by the count of user messages growing, or, when the transcript was replaced
 * meanwhile (a branch just navigated to, whose answer came after the count was read), by the newest user
 * message now holding the prompt's text, as the page shows it (redacted, spaces collapsed).
 */
export async function runPrompt(page: Page, text: string): Promise<void> {
	const before = await page.evaluate(() => {
		const users = document.querySelectorAll(".msg.user:not(.pending)");
		return { count: users.length, last: users[users.length - 1]?.textContent ?? "" };
	});
	await typeAndSend(page, text);
	const shown = collapse(redactSecrets(text)).slice(0, 40);
	await page.waitForFunction(
		({ count, last, shown }) => {
			const users = document.querySelectorAll(".msg.user:not(.pending)");
			if (users.length > count) return true;
			const newest = users[users.length - 1]?.textContent ?? "";
			return newest !== last && newest.replace(/\s+/g, " ").includes(shown);
		},
		{ ...before, shown },
	);
	await page.waitForSelector(".app[data-run='idle']");
}

function collapse(text: string): string {
	return text.replace(/\s+/g, " ").trim();
}

/** Waits until the page's transitions have finished and it has rendered what is pending (two frames more). */
export async function settled(page: Page): Promise<void> {
	await page.evaluate(async () => {
		const finite = document.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Infinity);
		await Promise.all(finite.map((a) => a.finished.catch(() => undefined)));
		await new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
	});
}

/** Shows a panel: on a phone, opens the drawer first. */
export async function showPanel(page: Page, viewport: Viewport, id: string): Promise<void> {
	if (viewport.phone && (await page.locator(".app.panel-open").count()) === 0) {
		await page.click("button.panel-toggle");
		await page.waitForSelector("aside.panels:not([inert])");
	}
	await page.click(`#tab-${id}`);
}

/** Starts a new session from the Sessions panel and waits for its empty transcript. */
export async function newSession(page: Page, viewport: Viewport): Promise<void> {
	// Waited for by its id: the session shown before may be empty too, and then shows the same empty state.
	const before = await page.evaluate(() => sessionStorage.getItem("skiff.session"));
	// The message box is made anew for the new session: waited for, so that what the test reads next is the new box.
	await page.evaluate(() => document.getElementById("composer")?.setAttribute("data-before-new-session", ""));
	await showPanel(page, viewport, "sessions");
	await page.click("button:has-text('New session')");
	await page.waitForFunction((id) => sessionStorage.getItem("skiff.session") !== id, before);
	await page.waitForSelector("#composer:not([data-before-new-session])");
	await page.waitForSelector(".empty:has-text('Ask the agent')");
	if (viewport.phone) await page.waitForSelector(".app:not(.panel-open)");
}

/** How far the transcript is from its bottom, in pixels (0: at the bottom). */
export function distanceFromBottom(page: Page): Promise<number> {
	return page.evaluate(() => {
		const el = document.querySelector(".transcript")!;
		return Math.round(el.scrollHeight - el.scrollTop - el.clientHeight);
	});
}
