/**
 * The Chromium the browser tests launch: the features turned off for their CPU (DISABLED_CHROMIUM_FEATURES) are
 * off, and playwright-core's own turned-off features still are (Chromium reads only the last --disable-features,
 * so test/support/chromium.sh merges them into one).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { DISABLED_CHROMIUM_FEATURES, launchBrowser } from "../support/browser.js";

let browser: Browser;
before(async () => {
	browser = await launchBrowser();
});
after(() => browser?.close());

/** The browser process's arguments: this process's child driven over a pipe (CDP gives them only with automation on). */
function browserCommandLine(): string[] {
	for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
		try {
			const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
			if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== process.pid) continue;
			const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
			if (args.includes("--remote-debugging-pipe")) return args;
		} catch {
			// ended meanwhile: not the browser, which runs until `after`
		}
	}
	throw new Error("no Chromium among this process's children");
}

test("one --disable-features holds the tests' features and playwright-core's", async () => {
	const args = browserCommandLine();
	const switches = args.filter((arg) => arg.startsWith("--disable-features="));
	assert.equal(switches.length, 1, `one --disable-features: ${JSON.stringify(switches)}`);
	const features = switches[0]!.slice("--disable-features=".length).split(",");
	for (const feature of DISABLED_CHROMIUM_FEATURES) assert.ok(features.includes(feature), `${feature} is off: ${features.join(",")}`);
	assert.ok(features.length > DISABLED_CHROMIUM_FEATURES.length, `playwright-core's features are kept: ${features.join(",")}`);
	assert.ok(args.includes("--no-sandbox") && args.includes("--remote-debugging-pipe"), "the other switches go through as given");
});

test("a page's window builds no omnibox popup (a renderer of its own)", async () => {
	const context = await browser.newContext();
	try {
		const page = await context.newPage();
		await page.goto("data:text/html,<p>hello</p>");
		assert.equal(await page.textContent("p"), "hello");
		const cdp = await browser.newBrowserCDPSession();
		const { targetInfos } = (await cdp.send("Target.getTargets")) as { targetInfos: Array<{ type: string; url: string }> };
		assert.deepEqual(
			targetInfos.filter((t) => t.url.startsWith("chrome://omnibox-popup")).map((t) => t.url),
			[],
		);
		assert.equal(targetInfos.filter((t) => t.type === "page").length, 1);
	} finally {
		await context.close();
	}
});
