/**
 * The streaming benchmark's optional third side: `codex app-server` (OpenAI's Codex CLI, a native binary), driven
 * as docs/peer-baselines.md drove it (JSON-RPC lines over stdio) against the same fake model process, through
 * its Responses API (test/support/fake-responses.ts). It runs only when the benchmark is given the binary:
 * `--codex <path>` or SKIFF_BENCH_CODEX; nothing in the repository installs or needs codex (docs/benchmarks.md
 * says how to install it outside the repository).
 *
 * What it measures, as the other sides do: spawn → the answer to `initialize` (written at spawn, as pi's
 * `get_state` is), idle memory of the process tree, and for each prompt (`turn/start` on one thread) the first
 * `item/agentMessage/delta`, the `turn/completed` notification and every stdout byte in between.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { type PromptResult, promptLines, type Side } from "./side.js";
import { median, medianWithSpread } from "../stress/stats.js";
import { tempDir } from "../test/support/skiff-process.js";

/** The codex binary to run, or undefined to leave codex out (`--codex` wins over SKIFF_BENCH_CODEX). */
export function codexBinary(option: string | undefined): string | undefined {
	return option || process.env.SKIFF_BENCH_CODEX || undefined;
}

/**
 * A CODEX_HOME whose config makes the fake model codex's only provider (Responses API), with nothing that
 * reaches the network (no update check, no analytics) and no retries (a failed stream fails the benchmark).
 * It persists across iterations, as pi's and skiff's agent directory does.
 */
export function codexHome(modelUrl: string): string {
	const home = tempDir("skiff-bench-codex-");
	const config = [
		'model = "fake-model"',
		'model_provider = "fake"',
		'approval_policy = "never"',
		'sandbox_mode = "read-only"',
		"check_for_update_on_startup = false",
		"",
		"[analytics]",
		"enabled = false",
		"",
		"[model_providers.fake]",
		'name = "fake"',
		`base_url = ${JSON.stringify(modelUrl)}`,
		'wire_api = "responses"',
		"request_max_retries = 0",
		"stream_max_retries = 0",
		"",
	].join("\n");
	writeFileSync(join(home, "config.toml"), config);
	return home;
}

/** codex as a side of the benchmark: ready when `initialize` is answered (the thread it opens after is not counted). */
export interface CodexSide extends Side {
	readyAt: number;
}

export interface CodexSideOptions {
	binary: string;
	home: string;
	/** Numbers the model requests, shared with the other sides (each prompt makes one). */
	nextRequestIndex(): number;
	/** Epoch ms on the fake model's clock. */
	now(): number;
}

/** Spawns `codex app-server`, answers nothing but reads every line; resolves once a thread is open. */
export async function startCodexSide(options: CodexSideOptions): Promise<CodexSide> {
	const { now } = options;
	const child = spawn(options.binary, ["app-server"], {
		cwd: tempDir(),
		env: { ...process.env, CODEX_HOME: options.home },
		stdio: ["pipe", "pipe", "ignore"],
	});
	const pid = child.pid!;
	const died = new Promise<never>((_, reject) => child.once("exit", (code, signal) => reject(new Error(`codex app-server exited (${signal ?? `code ${code}`})`))));
	died.catch(() => undefined);
	child.stdout.setEncoding("utf8");
	let lineListener: ((line: string, bytes: number) => void) | undefined;
	createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", (line) => lineListener?.(line, Buffer.byteLength(line) + 1));
	let nextId = 0;
	/** Sends a request and resolves with its answer line (the only lines starting with `{"id":`). */
	const request = (method: string, params: unknown) => {
		const id = ++nextId;
		const answer = new Promise<string>((resolve) => {
			lineListener = (line) => {
				if (line.startsWith(`{"id":${id},`)) {
					lineListener = undefined;
					resolve(line);
				}
			};
		});
		child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
		return Promise.race([answer, died]);
	};
	try {
		await request("initialize", { clientInfo: { name: "skiff-bench", title: null, version: "0" }, capabilities: null });
		const readyAt = now();
		child.stdin.write(`${JSON.stringify({ method: "initialized" })}\n`);
		const started = JSON.parse(await request("thread/start", { cwd: null }));
		const threadId: string = started.result?.thread?.id;
		if (!threadId) throw new Error(`codex thread/start failed: ${JSON.stringify(started.error ?? started)}`);
		const prompt = (message: string) => {
			const result = new Promise<PromptResult>((resolve) => {
				lineListener = promptLines({
					pid,
					requestIndex: options.nextRequestIndex(),
					sentAt: now(),
					now,
					isDelta: (line) => line.startsWith('{"method":"item/agentMessage/delta"'),
					isEnd: (line) => line.startsWith('{"method":"turn/completed"'),
					done: (reply) => {
						lineListener = undefined;
						resolve(reply);
					},
				});
				const id = ++nextId;
				child.stdin.write(`${JSON.stringify({ id, method: "turn/start", params: { threadId, input: [{ type: "text", text: message, text_elements: [] }] } })}\n`);
			});
			return Promise.race([result, died]);
		};
		return { pid, readyAt, prompt, stop: () => stopChild(child) };
	} catch (error) {
		await stopChild(child);
		throw error;
	}
}

function stopChild(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
	const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
	child.kill("SIGTERM");
	return exited;
}

/** A row of the comparison, read off one side's sample. */
export interface CodexRow<S> {
	key: string;
	label: string;
	digits: number;
	value(sample: S): number;
}

/**
 * The goals of issue 21 that only a run beside codex can check: each says, from the two medians, whether it is
 * met. Rows without a goal here have none against codex.
 */
const GOALS: Record<string, { text: string; met(skiff: number, codex: number): boolean; reply?: true }> = {
	readyMs: { text: "≤ codex's", met: (skiff, codex) => skiff <= codex },
	idleRssMiB: { text: "≤ 75 MiB", met: (skiff) => skiff <= 75 },
	totalMs: { text: "≤ 600 ms and ≤ 0.75 × codex", met: (skiff, codex) => skiff <= 600 && skiff <= 0.75 * codex, reply: true },
	cpuMs: { text: "≤ 0.5 × codex", met: (skiff, codex) => skiff <= 0.5 * codex, reply: true },
};

/**
 * skiff beside codex, both measured in this run, with the goal and whether its medians meet it. The goals of the
 * reply are for the 20,000-delta one: `replyGoals` false leaves them out for another length.
 */
export function codexTable<S>(rows: readonly CodexRow<S>[], skiff: readonly S[], codex: readonly S[], intro: string, replyGoals: boolean): string {
	return [
		intro,
		"",
		"| metric | skiff (WebSocket) | codex app-server (stdio) | skiff / codex (medians) | goal | met |",
		"|---|---|---|---|---|---|",
		...rows.map(({ key, label, digits, value }) => {
			const a = skiff.map(value);
			const b = codex.map(value);
			const goal = GOALS[key]?.reply && !replyGoals ? undefined : GOALS[key];
			const met = goal ? (goal.met(median(a), median(b)) ? "yes" : "no") : "";
			return `| ${label} | ${medianWithSpread(a, digits, "min–max")} | ${medianWithSpread(b, digits, "min–max")} | ${(median(a) / median(b)).toFixed(3)} | ${goal?.text ?? ""} | ${met} |`;
		}),
	].join("\n");
}
