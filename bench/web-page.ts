/**
 * The web page in Chromium: its gzipped size, and the time from navigation to the first render of a
 * 10,000-message session, against the same page opening an empty session in the same run (the baseline).
 * Which of the two opens first alternates from one iteration to the next. Also the longest frame while
 * scrolling up through the long transcript, and the first GET /web with Accept-Encoding: br of each start (served
 * from the build's compressed file) against compressing the page at brotli quality 11, what that request waited
 * for before the build made the file. Prints medians with min–max. Usage: npm run bench:web [-- --iterations 5 --write]
 */
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { writeBenchSection } from "./doc-section.js";
import { readBenchOptions } from "./options.js";
import { formatNumber, median, medianWithSpread } from "./stats.js";
import { launchBrowser } from "../test/support/browser.js";
import { writeLongSession } from "../test/support/session-file.js";
import { startSkiff, tempDir } from "../test/support/skiff-process.js";

const options = readBenchOptions();
const ITERATIONS = options.iterations;
const MESSAGES = 10_000;

const html = readFileSync(new URL("../dist/web/index.html", import.meta.url));
const gzipped = gzipSync(html, { level: 9 }).length;

/** The first GET /web of a start, as a browser asks it (brotli accepted): request → last byte (ms). */
function firstBrotliRequestMs(url: string): Promise<number> {
	const sent = performance.now();
	return new Promise((resolve, reject) => {
		const req = request(`${url}/web`, { headers: { "Accept-Encoding": "gzip, deflate, br" } }, (res) => {
			if (res.headers["content-encoding"] !== "br") reject(new Error(`not brotli: ${res.headers["content-encoding"]}`));
			res.resume();
			res.on("end", () => resolve(performance.now() - sent));
		});
		req.on("error", reject);
		req.end();
	});
}

/** Compressing the page as the service did on its first brotli request before the build did it (ms). */
function brotliCompressMs(): number {
	const started = performance.now();
	brotliCompressSync(html, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
	return performance.now() - started;
}

/** One 60 Hz frame (ms): the budget a scroll step should stay within. */
const FRAME_BUDGET_MS = 1000 / 60;

async function main(): Promise<void> {
	const agentDir = tempDir("skiff-bench-web-");
	const cwd = tempDir();
	writeLongSession(agentDir, cwd, "long-session", MESSAGES);
	const browser = await launchBrowser();
	const long: number[] = [];
	const empty: number[] = [];
	const frames: number[] = [];
	const firstBr: number[] = [];
	const compressBr: number[] = [];
	for (let i = 0; i < ITERATIONS; i++) {
		const pair = [["long-session", long], [undefined, empty]] as const;
		// Alternate which page opens first, so that neither always follows the other's shutdown.
		for (const [session, samples] of i % 2 === 0 ? pair : [...pair].reverse()) {
			const skiff = await startSkiff({ agentDir, cwd, args: session ? ["--session", session] : ["--no-session"] });
			// The page is measured, not the service's cold start (the streaming benchmark's row): both sessions are
			// open before the page loads.
			await skiff.ready;
			firstBr.push(await firstBrotliRequestMs(skiff.url));
			compressBr.push(brotliCompressMs());
			const page = await browser.newPage({ viewport: { width: 1200, height: 850 } });
			await page.goto(`${skiff.url}/web`);
			// No model is configured here, so the empty session's first render is the setup card, drawn once the
			// service has answered (the transcript's empty placeholder shows before that, so it is not waited for).
			const selector = session ? `.msg.assistant:has-text("Answer ${MESSAGES - 1}:")` : ".setup-card";
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
	const spread = (samples: number[]) => medianWithSpread(samples, 0, "min–max");
	const table = [
		`Measured ${new Date().toISOString().slice(0, 10)} in Debian Chromium (headless), ${ITERATIONS} iterations, the long session first in odd ones; median (min–max) over the iterations.`,
		"",
		"| metric | value | baseline | ratio (medians) |",
		"|---|---|---|---|",
		`| page size, gzipped (bytes) | ${formatNumber(gzipped, 0)} | – | – |`,
		`| first GET /web of a start, Accept-Encoding: br (ms, both sessions' starts) | ${medianWithSpread(firstBr, 1, "min–max")} | ${medianWithSpread(compressBr, 0, "min–max")}, compressing the page at brotli quality 11 | ${(median(firstBr) / median(compressBr)).toFixed(3)} |`,
		`| navigation → first render, ${MESSAGES.toLocaleString("en")}-message session (ms) | ${spread(long)} | ${spread(empty)}, empty session | ${(median(long) / median(empty)).toFixed(2)} |`,
		`| longest frame while scrolling up through it (ms) | ${spread(frames)} | ${FRAME_BUDGET_MS.toFixed(1)} (one 60 Hz frame) | ${(median(frames) / FRAME_BUDGET_MS).toFixed(2)} |`,
	].join("\n");
	console.log(table);
	if (options.write) writeBenchSection("web", table);
}

await main();
