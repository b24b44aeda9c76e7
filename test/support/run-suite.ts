/**
 * `npm test`'s runner: every test file, each in a process of its own as `node --test` runs them, in two phases.
 *
 * 1. The files that assert how long something took (a ping answered within 100 ms while the service works, a
 *    redaction linear in its input) run one at a time with nothing else of the suite beside them: run among the
 *    others they measured the others.
 * 2. Then every other file, several at once: the browser files are mostly waiting (on Chromium, on the service,
 *    on a streamed reply), so more of them run at once than the 2 cores would suggest, and the unit and
 *    integration files fill the slots left. The longest files go first (by how long each took last time, see
 *    {@link expectedSeconds}), so the short files fill the end and no long one starts last: a 48 s integration
 *    file started once the browser files were done would have run alone at the end with a core idle.
 *
 * Each file's output (the spec reporter) is printed whole once the file ends, so files running together never
 * mix their lines; the end lists the failed files and the slowest ones. Each file gets a temporary folder of its
 * own as TMPDIR (its tests', its services' and Chromium's temporary files), removed once it ends: the suite left
 * some 30,000 folders in /tmp a day, which made esbuild's bundling of a clone under /tmp four times slower.
 * Packages of many small modules (typebox) are bundled once per run and each file loads the bundle instead
 * (prebundled-packages.ts): module by module through tsx's hooks they were half of a unit file's CPU.
 *
 *   node --import tsx test/support/run-suite.ts [file …]     every test file, or only those given
 *
 * SKIFF_TEST_SLOTS (default 3) sets how many files run at once in phase 2, SKIFF_TEST_BROWSER_SLOTS (default 2)
 * how many of those may be browser files. (4 and 3 took the same time on 2 cores, 412 s against 422 at
 * concurrency 2, and stalled the machine long enough for a clean-clone CI run to time out two waits of 10 and 30 s.)
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { dirname, join, relative } from "node:path";
import { PREBUNDLED_ENV, type Prebundled, prebundlePackages } from "./prebundled-packages.js";
import { REPO_ROOT } from "./skiff-process.js";

/**
 * The files that assert a duration, each with what it times. A file added here runs alone; one that asserts a
 * duration and is missing from here fails now and then, when the files beside it load the machine.
 */
export const TIMED_FILES: Record<string, string> = {
	"test/integration/redaction-freeze.test.ts": "pings answered within 100 ms during an adversarial redaction",
	"test/integration/web-route.test.ts": "a ping answered within 100 ms while the page is compressed",
	"test/integration/workflow-git-hang.test.ts": "pings answered within 100 ms while git hangs",
	"test/integration/session-search-load.test.ts": "pings answered within 1 s during a search of 5,000 files",
	"test/integration/changes-large-write.test.ts": "a 200 KB write's diff made within the 50 ms the service gives jsdiff",
	"test/unit/shared/redact-linear.test.ts": "redaction time per MiB",
	"test/unit/memory/search-query.test.ts": "search time per MiB",
	"test/unit/fake-openai.test.ts": "the fake model's parse time, and its pacing",
	"test/unit/features/changes-announce.test.ts": "an announcement within 2 s (+200 ms) of a burst",
	"test/unit/features/workflow-git-runner.test.ts": "git stopped soon after its timeout",
	"test/unit/agent/pi/event-stream-pieces.test.ts": "the event loop turning while a stream is read",
};

const slots = positive("SKIFF_TEST_SLOTS", 3);
const browserSlots = Math.min(slots, positive("SKIFF_TEST_BROWSER_SLOTS", 2));
/** How much of a failed file's report the summary repeats. */
const FAILURE_REPORT_CHARS = 4_000;

function positive(name: string, fallback: number): number {
	const value = process.env[name];
	if (value === undefined) return fallback;
	const n = Number(value);
	if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of at least 1, not "${value}"`);
	return n;
}

interface Outcome {
	file: string;
	ms: number;
	code: number | null;
	counts: Record<string, number>;
	/** What the spec reporter said about the file's failures ("✖ failing tests:" on), else its last lines. */
	failures: string;
}

/** Every `*.test.ts` under test/, by path from the repository's root, sorted. */
function allTestFiles(): string[] {
	const root = join(REPO_ROOT, "test");
	return readdirSync(root, { recursive: true, encoding: "utf8" })
		.filter((path) => path.endsWith(".test.ts"))
		.map((path) => join("test", path))
		.sort();
}

const isBrowser = (file: string) => file.startsWith("test/browser/");

/**
 * How long each file took, in seconds: the last run's (kept under node_modules/.cache/, written when a run ends),
 * else the committed figures in file-durations.json (a clean clone's, and CI's, as `npm ci` empties
 * node_modules). Only the order of the files depends on them.
 */
const DURATIONS_CACHE = join(REPO_ROOT, "node_modules", ".cache", "skiff-tests", "durations.json");
const DURATIONS_COMMITTED = join(REPO_ROOT, "test", "support", "file-durations.json");

function readDurations(): Record<string, number> {
	return { ...readJson(DURATIONS_COMMITTED), ...readJson(DURATIONS_CACHE) };
}

function readJson(path: string): Record<string, number> {
	try {
		const value: unknown = JSON.parse(readFileSync(path, "utf8"));
		if (typeof value !== "object" || value === null) return {};
		return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, number] => typeof entry[1] === "number"));
	} catch {
		return {}; // none yet, or unreadable: the committed figures and the guesses below order the files
	}
}

/** A file's expected time: as measured, else a guess by kind (a new browser file is among the longer ones). */
function expectedSeconds(durations: Record<string, number>, file: string): number {
	return durations[file] ?? (isBrowser(file) ? 20 : file.startsWith("test/integration/") ? 5 : 1);
}

/** Keeps this run's times for the next run's order (a run of some files updates theirs only). */
function writeDurations(outcomes: Outcome[]): void {
	const next = { ...readJson(DURATIONS_CACHE) };
	for (const o of outcomes) if (o.code === 0) next[o.file] = Math.round(o.ms / 100) / 10;
	try {
		mkdirSync(dirname(DURATIONS_CACHE), { recursive: true });
		writeFileSync(DURATIONS_CACHE, `${JSON.stringify(next, null, "\t")}\n`);
	} catch (error) {
		console.log(`(the files' times were not kept for the next run's order: ${(error as Error).message})`);
	}
}

/**
 * A file's own temporary folder, holding a link to tsx's cache of compiled files (`tsx-<euid>` in the system's
 * temporary folder): without it each file's process compiled every module it loads again.
 */
function temporaryFolder(): string {
	const folder = mkdtempSync(join(tmpdir(), "skiff-suite-"));
	const cache = `tsx-${process.geteuid?.() ?? userInfo().username}`;
	mkdirSync(join(tmpdir(), cache), { recursive: true, mode: 0o700 });
	symlinkSync(join(tmpdir(), cache), join(folder, cache));
	return folder;
}

/** Where the packages with many modules (prebundled-packages.ts) were bundled for this run (the resolve hook's data): set by main. */
let prebundled: Prebundled = { bundles: {}, roots: [] };
const PREBUNDLED_REGISTER = join(REPO_ROOT, "test", "support", "prebundled-register.mjs");

/**
 * Runs one file as `node --test` runs each file (its own process, tsx loaded, the bundled packages sent to
 * their bundles), its output kept until it ends.
 */
function runFile(file: string): Promise<Outcome> {
	const started = performance.now();
	const temporary = temporaryFolder();
	return new Promise((resolve) => {
		const child = spawn(process.execPath, ["--import", "tsx", "--import", PREBUNDLED_REGISTER, "--test-reporter=spec", file], {
			cwd: REPO_ROOT,
			env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? "1" : "0", TMPDIR: temporary, [PREBUNDLED_ENV]: JSON.stringify(prebundled) },
			stdio: ["ignore", "pipe", "pipe"],
		});
		const output: Buffer[] = [];
		child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
		child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
		child.on("close", (code) => {
			const ms = performance.now() - started;
			const text = Buffer.concat(output).toString("utf8");
			// Not awaited: the next file need not wait for it (a folder still in use, a mount left: left behind).
			void rm(temporary, { recursive: true, force: true, maxRetries: 2 }).catch(() => undefined);
			process.stdout.write(`\n▶ ${file} (${(ms / 1000).toFixed(1)} s${code === 0 ? "" : `, exit ${code}`})\n${text}`);
			resolve({ file, ms, code, counts: countsOf(text), failures: code === 0 ? "" : failuresOf(text) });
		});
	});
}

/** The spec reporter's closing counts ("ℹ tests 12", "ℹ pass 12", …); a file that never got there has none. */
function countsOf(text: string): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const match of text.matchAll(/^ℹ (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm)) counts[match[1]!] = Number(match[2]);
	return counts;
}

/** The spec reporter's closing list of failures with their errors, bounded; a file that crashed: its last lines. */
function failuresOf(text: string): string {
	const at = text.lastIndexOf("failing tests:");
	const part = at >= 0 ? text.slice(at) : text.split("\n").slice(-40).join("\n");
	return part.length > FAILURE_REPORT_CHARS ? `${part.slice(0, FAILURE_REPORT_CHARS)}\n…` : part;
}

/** Runs `files` at most `limit` at once, and at most `browserLimit` browser files at once, in the order given. */
async function runPool(files: string[], limit: number, browserLimit: number): Promise<Outcome[]> {
	const waiting = [...files];
	const outcomes: Outcome[] = [];
	let browsers = 0;
	let running = 0;
	await new Promise<void>((done) => {
		const next = () => {
			if (waiting.length === 0 && running === 0) return done();
			while (running < limit) {
				const index = waiting.findIndex((file) => !isBrowser(file) || browsers < browserLimit);
				if (index < 0) return;
				const [file] = waiting.splice(index, 1) as [string];
				const browser = isBrowser(file);
				running++;
				if (browser) browsers++;
				void runFile(file).then((outcome) => {
					outcomes.push(outcome);
					running--;
					if (browser) browsers--;
					next();
				});
			}
		};
		next();
	});
	return outcomes;
}

async function main(): Promise<void> {
	const given = process.argv.slice(2).map((path) => relative(REPO_ROOT, join(process.cwd(), path)));
	const files = given.length > 0 ? given : allTestFiles();
	const durations = readDurations();
	const longestFirst = (a: string, b: string) => expectedSeconds(durations, b) - expectedSeconds(durations, a) || a.localeCompare(b);
	const timed = files.filter((file) => file in TIMED_FILES).sort(longestFirst);
	const rest = files.filter((file) => !(file in TIMED_FILES)).sort(longestFirst);
	const started = performance.now();
	const bundleFolder = mkdtempSync(join(tmpdir(), "skiff-suite-bundles-"));
	prebundled = await prebundlePackages(bundleFolder);
	console.log(`${timed.length} timed files one at a time, then ${rest.length} files ${slots} at once (${browserSlots} of them browser files at most)`);
	const outcomes = [...(await runPool(timed, 1, 1)), ...(await runPool(rest, slots, browserSlots))];
	writeDurations(outcomes);
	await rm(bundleFolder, { recursive: true, force: true });

	const total = (key: string) => outcomes.reduce((sum, o) => sum + (o.counts[key] ?? 0), 0);
	const failed = outcomes.filter((o) => o.code !== 0);
	console.log("\nslowest files:");
	for (const o of [...outcomes].sort((a, b) => b.ms - a.ms).slice(0, 10)) console.log(`  ${(o.ms / 1000).toFixed(1).padStart(6)} s  ${o.file}`);
	console.log(`\n${outcomes.length} files, ${total("tests")} tests: ${total("pass")} passed, ${total("fail")} failed, ${total("cancelled")} cancelled, ${total("skipped")} skipped, ${total("todo")} todo`);
	console.log(`${((performance.now() - started) / 1000).toFixed(1)} s`);
	if (failed.length > 0) {
		console.log(`\nfailed (${failed.length}):`);
		for (const o of failed) console.log(`  ${o.file} (exit ${o.code})`);
		// Again at the very end, where a CI log's tail is read: what failed and why, not only which file.
		for (const o of failed) console.log(`\n✖ ${o.file}\n${o.failures.trimEnd()}`);
		process.exitCode = 1;
	}
}

await main();
