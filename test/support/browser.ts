/** Debian's Chromium driven by playwright-core, with the flags this workplace needs (no background network). */
import { type Browser, chromium } from "playwright-core";

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
