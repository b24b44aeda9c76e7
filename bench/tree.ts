/**
 * The session tree of a 2,000-entry session: how long get_tree's nodes take to build in the service (the
 * first time, and again once every entry's node is kept), how many bytes the answer is, and the whole round
 * trip of `get_tree` over a WebSocket against a real skiff that opened the file. Then the web page's Tree panel
 * on that session in Chromium: opening it (get_tree, layout and render), opening it again, switching a filter,
 * typing a search and moving with an arrow key, each timed in the page from the action to the rendered and laid
 * out result. Prints medians with p25–p75.
 * Usage: npm run build && node --import tsx bench/tree.ts [-- --rounds 200 --write]
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import type { Page } from "playwright-core";
import { SessionTreeView } from "../src/agent/pi/session-tree.js";
import { launchBrowser } from "../test/support/browser.js";
import { startSkiff, tempDir } from "../test/support/skiff-process.js";
import { TestClient } from "../test/support/ws-client.js";
import { writeBenchSection } from "./doc-section.js";
import { readBenchOptions } from "./options.js";
import { formatNumber, medianWithSpread } from "../stress/stats.js";

const options = readBenchOptions();
const ROUNDS = options.rounds;
const ENTRIES = 2_000;

/**
 * A session file of ENTRIES entries: turns of a user message, an assistant message with a tool call, the
 * tool's output and the answer (texts of a few hundred to a few thousand characters, as in real sessions),
 * with a side branch every 50 turns.
 */
function sessionFile(): string {
	const lines: object[] = [{ type: "session", version: 3, id: "bench-tree", timestamp: new Date().toISOString(), cwd: "/bench" }];
	const id = () => randomBytes(4).toString("hex");
	const usage = { input: 900, output: 200, cacheRead: 0, cacheWrite: 0, totalTokens: 1100, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
	let parent: string | null = null;
	let time = Date.now() - ENTRIES * 1000;
	const add = (fields: object, parentId: string | null = parent): string => {
		const entry = { id: id(), parentId, timestamp: new Date((time += 1000)).toISOString(), ...fields };
		lines.push(entry);
		return entry.id;
	};
	const message = (message: object, parentId?: string | null) => add({ type: "message", message: { timestamp: time, ...message } }, parentId);
	const text = (words: number) => Array.from({ length: words }, (_, i) => ["the", "service", "reads", "config", "files", "and", "tests"][i % 7]).join(" ");
	for (let turn = 0; lines.length - 1 < ENTRIES; turn++) {
		const before = parent;
		parent = message({ role: "user", content: [{ type: "text", text: `Question ${turn}: ${text(60)}` }] });
		const call = `call_${turn}`;
		parent = message({
			role: "assistant",
			content: [
				{ type: "text", text: text(150) },
				{ type: "toolCall", id: call, name: "bash", arguments: { command: `grep -rn config src/${turn}` } },
			],
			api: "openai-completions",
			provider: "fake",
			model: "fake-model",
			usage,
			stopReason: "toolUse",
		});
		parent = message({ role: "toolResult", toolCallId: call, toolName: "bash", content: [{ type: "text", text: text(400) }], isError: false });
		parent = message({ role: "assistant", content: [{ type: "text", text: text(200) }], api: "openai-completions", provider: "fake", model: "fake-model", usage, stopReason: "stop" });
		if (turn % 50 === 49) message({ role: "user", content: [{ type: "text", text: `A side branch at turn ${turn}` }] }, before);
	}
	const path = join(tempDir("skiff-bench-tree-"), "2026-01-01T00-00-00-000Z_bench-tree.jsonl");
	writeFileSync(path, `${lines.slice(0, ENTRIES + 1).map((l) => JSON.stringify(l)).join("\n")}\n`);
	return path;
}

function time(action: () => unknown): number[] {
	const samples: number[] = [];
	for (let i = 0; i < ROUNDS; i++) {
		const start = performance.now();
		action();
		samples.push(performance.now() - start);
	}
	return samples;
}

const file = sessionFile();
const manager = SessionManager.open(file);
const cold = time(() => new SessionTreeView(manager).tree());
const kept = new SessionTreeView(manager);
const warm = time(() => kept.tree());
const answer = JSON.stringify({ type: "response", command: "get_tree", success: true, data: kept.tree() });
const nodes = kept.tree().nodes.length;

const agentDir = tempDir("skiff-bench-tree-agent-");
const skiff = await startSkiff({ agentDir, args: ["--session", file] });
const client = await TestClient.connect(skiff.wsUrl);
await client.ok({ type: "get_tree" }); // the first answer builds every node
const trips: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
	const start = performance.now();
	await client.ok({ type: "get_tree" });
	trips.push(performance.now() - start);
}
const wireBytes = Buffer.byteLength(client.frames.at(-1)!);
client.close();

/** Page loads measured for the first opening of the panel (each a fresh page: nothing kept). */
const PAGE_LOADS = Math.min(ROUNDS, 20);

/**
 * Runs `action` in the page and times it up to the moment `done` holds with the result laid out: Preact renders
 * in a microtask after an event, so a zero-delay timeout comes after it, and reading a layout property forces
 * the layout. The time to paint the frame is left out (it is the browser's, and capped by the screen's rate).
 */
function timeInPage(page: Page, action: string, done: string): Promise<number> {
	return page.evaluate(
		async ([act, check]) => {
			const start = performance.now();
			new Function(act!)();
			const ready = new Function(`return (${check})`) as () => boolean;
			for (let i = 0; !ready(); i++) {
				if (i === 1000) throw new Error(`not done after the action: ${check}`);
				await new Promise((resolve) => setTimeout(resolve, 0));
			}
			void document.body.offsetHeight;
			return performance.now() - start;
		},
		[action, done],
	);
}

const browser = await launchBrowser();
const firstOpen: number[] = [];
const reopen: number[] = [];
const filter: number[] = [];
const search: number[] = [];
const arrow: number[] = [];
let rendered = 0;
let rows = 0;
for (let load = 0; load < PAGE_LOADS; load++) {
	const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
	await page.goto(`${skiff.url}/web`);
	await page.waitForSelector('.pill[data-status="connected"]');
	await page.waitForSelector(".msg.assistant");
	firstOpen.push(await timeInPage(page, 'document.getElementById("tab-tree").click()', 'document.querySelector(".tree-row.current")'));
	if (load === 0) {
		rendered = await page.locator(".tree-row").count();
		rows = await page.evaluate(() => Math.round(document.querySelector(".tree-space")!.clientHeight / document.querySelector<HTMLElement>(".tree-row")!.offsetHeight));
		const rounds = Math.ceil(ROUNDS / 2);
		for (let i = 0; i < rounds; i++) {
			await timeInPage(page, 'document.getElementById("tab-sessions").click()', '!document.querySelector(".tree-view")');
			reopen.push(await timeInPage(page, 'document.getElementById("tab-tree").click()', 'document.querySelector(".tree-row.current")'));
			const button = (label: string) => `[...document.querySelectorAll(".tree-filters button")].find((b) => b.textContent === "${label}").click()`;
			filter.push(await timeInPage(page, button("User"), '[...document.querySelectorAll(".tree-row")].every((r) => r.classList.contains("kind-user"))'));
			filter.push(await timeInPage(page, button("All"), 'document.querySelector(".tree-row.kind-assistant")'));
			const type = (text: string) => `const i = document.querySelector(".tree-search"); i.value = ${JSON.stringify(text)}; i.dispatchEvent(new Event("input", { bubbles: true }))`;
			search.push(await timeInPage(page, type(`Question ${100 + i}:`), `document.querySelectorAll(".tree-row").length === 1`));
			search.push(await timeInPage(page, type(""), `document.querySelectorAll(".tree-row").length > 1`));
			// The panel opened at the active (last) entry: a step up.
			const before = await page.getAttribute(".tree-view", "aria-activedescendant");
			arrow.push(
				await timeInPage(page, 'document.querySelector(".tree-view").dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowUp", bubbles: true }))', `document.querySelector(".tree-view").getAttribute("aria-activedescendant") !== ${JSON.stringify(before)}`),
			);
		}
	}
	await page.close();
}
await browser.close();
await skiff.stop();

const spread = (samples: number[]) => medianWithSpread(samples, 2, "p25–p75");
const table = [
	`Measured ${new Date().toISOString().slice(0, 10)} on a ${formatNumber(nodes, 0)}-entry session (${formatNumber(Buffer.byteLength(answer) / 1024, 0)} KiB as JSON), ${ROUNDS} rounds each; median (p25–p75) over the rounds.`,
	"",
	"| metric | value |",
	"|---|---|",
	`| building the nodes, first time (every preview redacted and cut) (ms) | ${spread(cold)} |`,
	`| building them again (nodes kept per entry, labels read) (ms) | ${spread(warm)} |`,
	`| get_tree round trip over a WebSocket, against skiff (ms) | ${spread(trips)} |`,
	`| get_tree answer on the wire (bytes) | ${formatNumber(wireBytes, 0)} (${formatNumber(wireBytes / nodes, 0)} per entry) |`,
	`| page: opening the Tree panel, first time (get_tree, layout of ${formatNumber(rows, 0)} rows, render) (ms, ${PAGE_LOADS} page loads) | ${spread(firstOpen)} |`,
	`| page: opening it again (layout and render; ${rendered} rows exist, the ones in view) (ms) | ${spread(reopen)} |`,
	`| page: switching the filter (User ⇄ All) (ms) | ${spread(filter)} |`,
	`| page: typing a search (a word, then clearing it) (ms) | ${spread(search)} |`,
	`| page: one arrow key step (ms) | ${spread(arrow)} |`,
].join("\n");
console.log(table);
if (options.write) writeBenchSection("tree", table);
