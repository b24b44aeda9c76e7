/** Debian's Chromium driven by playwright-core, with the flags this workplace needs (no background network). */
import { type Browser, chromium, type Page } from "playwright-core";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "./fake-openai.js";
import { type SkiffProcess, startSkiff, tempDir } from "./skiff-process.js";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export function launchBrowser(): Promise<Browser> {
	return chromium.launch({
		executablePath: CHROMIUM_PATH,
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
