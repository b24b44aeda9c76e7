/**
 * The web page in Chromium: its gzipped size, and the time from navigation to the first render of a
 * 10,000-message session, against the same page opening an empty session in the same run (the baseline).
 * Also the longest frame while scrolling up through the long transcript. Usage: npm run bench:web [-- --write]
 */
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { parseArgs } from "node:util";
import { writeBenchSection } from "./doc-section.js";
import { launchBrowser } from "../test/support/browser.js";
import { writeLongSession } from "../test/support/session-file.js";
import { startSkiff, tempDir } from "../test/support/skiff-process.js";

const { values } = parseArgs({ options: { iterations: { type: "string", default: "5" }, write: { type: "boolean", default: false } } });
const ITERATIONS = Number(values.iterations);
const MESSAGES = 10_000;

const html = readFileSync(new URL("../dist/web/index.html", import.meta.url));
const gzipped = gzipSync(html, { level: 9 }).length;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
	const agentDir = tempDir("skiff-bench-web-");
	const cwd = tempDir();
	writeLongSession(agentDir, cwd, "long-session", MESSAGES);
	const browser = await launchBrowser();
	const long: number[] = [];
	const empty: number[] = [];
	const frames: number[] = [];
	for (let i = 0; i < ITERATIONS; i++) {
		for (const [session, samples] of [["long-session", long], [undefined, empty]] as const) {
			const skiff = await startSkiff({ agentDir, cwd, args: session ? ["--session", session] : ["--no-session"] });
			const page = await browser.newPage({ viewport: { width: 1200, height: 850 } });
			await page.goto(`${skiff.url}/web`);
			const selector = session ? `.msg.assistant:has-text("Answer ${MESSAGES - 1}:")` : ".empty:has-text('Ask the agent')";
			await page.waitForSelector(selector, { timeout: 60_000 });
			samples.push(await page.evaluate(() => performance.now()));
			if (session) {
				// Scroll to the top in steps (loading earlier messages as it goes) and record the longest frame.
				frames.push(
					await page.evaluate(async () => {
						const scroller = document.querySelector(".transcript")!;
						let longest = 0;
						let last = performance.now();
						for (let step = 0; step < 60; step++) {
							scroller.scrollTop -= 1500;
							await new Promise((resolve) => requestAnimationFrame(resolve));
							const now = performance.now();
							longest = Math.max(longest, now - last);
							last = now;
						}
						return longest;
					}),
				);
			}
			await page.close();
			await skiff.stop();
		}
		process.stderr.write(`iteration ${i + 1}/${ITERATIONS} done\n`);
	}
	await browser.close();
	const table = [
		`Measured ${new Date().toISOString().slice(0, 10)} in Debian Chromium (headless), ${ITERATIONS} iterations, medians.`,
		"",
		"| metric | value | baseline | ratio |",
		"|---|---|---|---|",
		`| page size, gzipped (bytes) | ${gzipped} | – | – |`,
		`| navigation → first render, ${MESSAGES.toLocaleString("en")}-message session (ms) | ${median(long).toFixed(0)} | ${median(empty).toFixed(0)} (empty session) | ${(median(long) / median(empty)).toFixed(2)} |`,
		`| longest frame while scrolling up through it (ms) | ${median(frames).toFixed(0)} | 16.7 (one 60 Hz frame) | ${(median(frames) / 16.7).toFixed(2)} |`,
	].join("\n");
	console.log(table);
	if (values.write) writeBenchSection("web", table);
}

await main();
