/**
 * Start-up benchmark (issue 21, item 8): spawn → first answer to `get_state` over a WebSocket, and the resident
 * memory of the process tree 2 s after that (idle), for skiff as the streaming benchmark starts it (run.ts), in
 * more iterations than that benchmark can afford, since nothing is streamed. With `--codex <path>` (or
 * SKIFF_BENCH_CODEX) `codex app-server` starts in turn (spawn → answer to `initialize`), alternating which
 * goes first; its medians are the goal. Prints medians with min–max; `--write` updates docs/benchmarks.md.
 * Usage (after `npm run build`): node --import tsx bench/startup.ts [--iterations 5] [--codex <path>] [--write]
 */
import { codexBinary, codexHome, startCodexSide } from "./codex-side.js";
import { writeBenchSection } from "./doc-section.js";
import { measuredCommit } from "./measured-commit.js";
import { readBenchOptions } from "./options.js";
import { processTreeRssMiB } from "./process-rss.js";
import { median, medianWithSpread } from "../stress/stats.js";
import { startFakeOpenAi, writeFakeModelsJson } from "../test/support/fake-openai.js";
import { startSkiff, tempDir } from "../test/support/skiff-process.js";
import { TestClient } from "../test/support/ws-client.js";

const options = readBenchOptions();
/** Each iteration starts this many processes per side: cold starts are short, so several make a stable median. */
const STARTS_PER_ITERATION = 3;
const IDLE_MS = 2000;
/** The goal for idle memory (issue 21, item 8). */
const IDLE_RSS_GOAL_MIB = 75;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Start {
	readyMs: number;
	idleRssMiB: number;
}

async function startSkiffOnce(agentDir: string): Promise<Start> {
	const spawnedAt = now();
	const skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model"] });
	try {
		const client = await TestClient.connect(skiff.wsUrl);
		await client.ok({ type: "get_state" });
		const readyMs = now() - spawnedAt;
		await sleep(IDLE_MS);
		const idleRssMiB = processTreeRssMiB(skiff.child.pid!);
		client.close();
		return { readyMs, idleRssMiB };
	} finally {
		await skiff.stop();
	}
}

async function startCodexOnce(binary: string, home: string): Promise<Start> {
	const spawnedAt = now();
	const codex = await startCodexSide({ binary, home, nextRequestIndex: () => 0, now });
	try {
		const readyMs = codex.readyAt - spawnedAt;
		await sleep(IDLE_MS);
		return { readyMs, idleRssMiB: processTreeRssMiB(codex.pid) };
	} finally {
		await codex.stop();
	}
}


async function main(): Promise<void> {
	const model = await startFakeOpenAi();
	const agentDir = tempDir("skiff-bench-startup-");
	writeFakeModelsJson(agentDir, model.url);
	const codex = codexBinary(options.codex);
	const home = codex ? codexHome(model.url) : undefined;
	const samples: Record<"skiff" | "codex", Start[]> = { skiff: [], codex: [] };
	try {
		for (let i = 0; i < options.iterations; i++) {
			const order = codex ? (i % 2 === 0 ? (["skiff", "codex"] as const) : (["codex", "skiff"] as const)) : (["skiff"] as const);
			for (const name of order) {
				for (let n = 0; n < STARTS_PER_ITERATION; n++) samples[name].push(name === "skiff" ? await startSkiffOnce(agentDir) : await startCodexOnce(codex!, home!));
			}
			process.stderr.write(`iteration ${i + 1}/${options.iterations} done\n`);
		}
	} finally {
		await model.close();
	}
	const ready = (list: Start[]) => list.map((s) => s.readyMs);
	const rss = (list: Start[]) => list.map((s) => s.idleRssMiB);
	const withCodex = samples.codex.length > 0;
	const codexReady = withCodex ? median(ready(samples.codex)) : undefined;
	const cell = (list: Start[], pick: (l: Start[]) => number[], digits: number) => (list.length ? medianWithSpread(pick(list), digits, "min–max") : "–");
	const table = [
		`Measured ${new Date().toISOString().slice(0, 10)} on src/ as of commit ${measuredCommit()} (built bundle), ${samples.skiff.length} starts of skiff` +
			(withCodex ? ` and ${samples.codex.length} of codex app-server 0.169.0, alternating in groups of ${STARTS_PER_ITERATION}` : "") +
			"; median (min–max) over the starts.",
		"",
		"| metric | skiff | codex app-server | goal | met |",
		"|---|---|---|---|---|",
		`| cold start: spawn → first answer to get_state (skiff) or initialize (codex) (ms) | ${cell(samples.skiff, ready, 0)} | ${cell(samples.codex, ready, 0)} | ≤ codex's | ${codexReady === undefined ? "–" : median(ready(samples.skiff)) <= codexReady ? "yes" : "no"} |`,
		`| idle RSS of the process tree, 2 s after ready (MiB) | ${cell(samples.skiff, rss, 1)} | ${cell(samples.codex, rss, 1)} | ≤ ${IDLE_RSS_GOAL_MIB} MiB | ${median(rss(samples.skiff)) <= IDLE_RSS_GOAL_MIB ? "yes" : "no"} |`,
	].join("\n");
	console.log(table);
	if (options.write) writeBenchSection("startup", table);
}

await main();
