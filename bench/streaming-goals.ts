/**
 * Issue 21's goals for streaming the 20,000-delta reply, beside what a run of bench/run.ts measured, and the
 * record of runs in docs/benchmarks.md: one row per measured commit, appended by `--write` (never replaced), so
 * a regression shows as a row. The goals against codex need codex measured in the same run; without it their
 * rows say so.
 */
import { execFileSync } from "node:child_process";
import { loadavg } from "node:os";
import { appendBenchRow } from "./doc-section.js";
import { formatNumber, median, medianWithSpread } from "../stress/stats.js";

/** What the goals look at, per iteration of one side. */
export interface StreamingFigures {
	/** Prompt sent → end of run at the client (ms). */
	totalMs: number;
	/** CPU time of the side's process tree during the measured reply (ms). */
	cpuMs: number;
	/** Bytes on the socket per text delta, WebSocket frame headers included (B). */
	wireBytesPerDelta: number;
}

export const GOAL_REPLY_MS = 600;
export const GOAL_REPLY_VS_CODEX = 0.75;
export const GOAL_CPU_VS_CODEX = 0.5;
export const GOAL_BYTES_PER_DELTA = 150;

const verdict = (met: boolean) => (met ? "met" : "**not met**");

/** The goals table: skiff's medians (min–max), the goal, and whether the median meets it. */
export function streamingGoalsTable(skiff: StreamingFigures[], codex?: StreamingFigures[]): string {
	const of = (samples: StreamingFigures[], key: keyof StreamingFigures) => samples.map((s) => s[key]);
	const ratio = (key: keyof StreamingFigures, goal: number, label: string) => {
		if (!codex?.length) return `| ${label} | – | ≤ ${goal} × codex | codex was not measured in this run |`;
		const r = median(of(skiff, key)) / median(of(codex, key));
		return `| ${label} | ${formatNumber(r, 2)} (codex ${medianWithSpread(of(codex, key), 0, "min–max")}) | ≤ ${goal} × codex | ${verdict(r <= goal)} |`;
	};
	const wall = of(skiff, "totalMs");
	const bytes = of(skiff, "wireBytesPerDelta");
	return [
		"| goal (issue 21, item 1) | skiff, median (min–max) | goal | |",
		"|---|---|---|---|",
		`| 20,000-delta reply: prompt → end of run at a WebSocket client (ms) | ${medianWithSpread(wall, 0, "min–max")} | ≤ ${GOAL_REPLY_MS} | ${verdict(median(wall) <= GOAL_REPLY_MS)} |`,
		ratio("totalMs", GOAL_REPLY_VS_CODEX, "that reply against codex's, same run (ratio of medians)"),
		`| CPU of skiff's process tree during that reply (ms) | ${medianWithSpread(of(skiff, "cpuMs"), 0, "min–max")} | – | |`,
		ratio("cpuMs", GOAL_CPU_VS_CODEX, "that CPU against codex's, same run (ratio of medians)"),
		`| bytes on the socket per delta, frame headers included (B) | ${medianWithSpread(bytes, 1, "min–max")} | ≤ ${GOAL_BYTES_PER_DELTA} | ${verdict(median(bytes) <= GOAL_BYTES_PER_DELTA)} |`,
	].join("\n");
}

/** The commit the run measured (short hash), marked when the code differs from it. */
function measuredCommit(): string {
	try {
		const hash = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
		const dirty = execFileSync("git", ["status", "--porcelain", "--", "src", "web", "scripts", "bin", "package.json"], { encoding: "utf8" }).trim();
		return dirty ? `${hash} + uncommitted changes` : hash;
	} catch {
		return "unknown";
	}
}

const RECORD_HEADER = [
	"| commit | measured (UTC) | load (1 min) | iterations | reply, prompt → end (ms) | CPU of the process tree (ms) | B/delta, frame headers included |",
	"|---|---|---|---|---|---|---|",
].join("\n");

/** Appends this run's row to the streaming record of docs/benchmarks.md. */
export function appendStreamingRecord(skiff: StreamingFigures[]): void {
	const of = (key: keyof StreamingFigures, digits: number) => medianWithSpread(skiff.map((s) => s[key]), digits, "min–max");
	const when = new Date().toISOString().slice(0, 16).replace("T", " ");
	// The machine is shared: the load average says how much else ran beside the benchmark.
	const load = loadavg()[0]!.toFixed(1);
	appendBenchRow("streaming-record", RECORD_HEADER, `| ${measuredCommit()} | ${when} | ${load} | ${skiff.length} | ${of("totalMs", 0)} | ${of("cpuMs", 0)} | ${of("wireBytesPerDelta", 1)} |`);
}
