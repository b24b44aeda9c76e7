/**
 * Unknown session ids with many sessions on disk (issue 21, item 5): skiff (real `bin/skiff`, fake model) over an
 * agent directory holding 5,000 generated session files in pi's layout, spread over project folders as a long-used
 * machine's are. Eight clients send 128 commands naming unknown session ids at once, 16 each (the most one socket
 * may have in flight; get_state, get_messages, switch_session and close_session, each with a fresh id), while a pinger in a process of its own pings back to
 * back. Each round's figure is the slowest ping sent while any of the 128 was unanswered; the goal is at most
 * 100 ms. Every answer must be the unknown-session error it was before.
 * Usage: node --import tsx bench/unknown-sessions.ts [-- --rounds 20 --write] (after `npm run build`)
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_CONCURRENT_COMMANDS } from "../src/listener/limits.js";
import { StressClient } from "../stress/client.js";
import { startPinger } from "../stress/pinger.js";
import { startService } from "../stress/service.js";
import { writeBenchSection } from "./doc-section.js";
import { readBenchOptions } from "./options.js";
import { srcCommit } from "./src-commit.js";
import { formatNumber, medianWithSpread } from "../stress/stats.js";

const FILES = 5_000;
/** Project folders the files are spread over (pi keeps one per working directory). */
const FOLDERS = 100;
const IN_FLIGHT = 128;
const GOAL_MS = 100;
/** Rounds are few and slow (each waits for the machine to settle), so the default `--rounds 200` is capped. */
const MAX_ROUNDS = 20;
const COMMANDS = ["get_state", "get_messages", "switch_session", "close_session"] as const;
/** What an unknown id gets today (src/agent/runtime-manager.ts, src/agent/pi/session-catalog.ts). */
const UNKNOWN = /^(Unknown session: |No recorded session matches ")/;

const options = readBenchOptions();
const ROUNDS = Math.min(options.rounds, MAX_ROUNDS);

/** Writes `FILES` session files, each a header and one user message, with settled times (a day old). */
function writeSessions(agentDir: string): void {
	const sessions = join(agentDir, "sessions");
	const day = new Date(Date.now() - 24 * 60 * 60 * 1000);
	for (let f = 0; f < FOLDERS; f++) {
		const cwd = `/home/user/project-${f}`;
		const folder = join(sessions, `--${cwd.slice(1).replaceAll("/", "-")}--`);
		mkdirSync(folder, { recursive: true });
		for (let i = f; i < FILES; i += FOLDERS) {
			const id = randomUUID();
			const stamp = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString().replace(/[:.]/g, "-");
			const header = { type: "session", version: 3, id, timestamp: new Date().toISOString(), cwd };
			const message = { type: "message", id: "m1", parentId: null, timestamp: new Date().toISOString(), message: { role: "user", content: `question ${i}`, timestamp: 0 } };
			const path = join(folder, `${stamp}_${id}.jsonl`);
			writeFileSync(path, `${JSON.stringify(header)}\n${JSON.stringify(message)}\n`);
			utimesSync(path, day, day);
		}
		utimesSync(folder, day, day);
	}
	utimesSync(sessions, day, day);
}

const service = await startService();
const rounds: number[] = [];
const idle: number[] = [];
let wrong = 0;
let example = "";
try {
	writeSessions(service.agentDir);
	await service.restart(); // the files are there from the start, as on a machine used for months
	const clients = await Promise.all(Array.from({ length: IN_FLIGHT / MAX_CONCURRENT_COMMANDS }, () => StressClient.connect(service.skiff.wsUrl)));
	const pinger = await startPinger(service.skiff.wsUrl);
	const windows: Array<{ from: number; to: number }> = [];
	for (let round = 0; round < ROUNDS; round++) {
		await new Promise((resolve) => setTimeout(resolve, 300)); // pings alone, for the idle figure
		const from = performance.timeOrigin + performance.now();
		const answers = await Promise.all(
			Array.from({ length: IN_FLIGHT }, (_, i) => {
				const type = COMMANDS[i % COMMANDS.length]!;
				const id = randomUUID();
				return clients[i % clients.length]!.request(type === "switch_session" ? { type, sessionPath: id } : { type, sessionId: id });
			}),
		);
		windows.push({ from, to: performance.timeOrigin + performance.now() });
		for (const answer of answers) {
			if (answer.success || !UNKNOWN.test(answer.error ?? "")) {
				wrong++;
				example ||= `${answer.command}: ${answer.success ? "succeeded" : answer.error}`;
			}
		}
	}
	const samples = await pinger.stop();
	for (const client of clients) client.close();
	for (const window of windows) {
		let slowest = 0;
		samples.sentAt.forEach((sentAt, i) => {
			// A ping sent before the burst ended and answered after it began overlapped the 128 in flight.
			if (sentAt <= window.to && sentAt + samples.ms[i]! >= window.from) slowest = Math.max(slowest, samples.ms[i]!);
		});
		rounds.push(slowest);
	}
	samples.sentAt.forEach((sentAt, i) => {
		if (!windows.some((w) => sentAt <= w.to && sentAt + samples.ms[i]! >= w.from)) idle.push(samples.ms[i]!);
	});
} finally {
	await service.stop();
}
if (wrong > 0) throw new Error(`${wrong} commands naming unknown ids did not get the unknown-session error (e.g. ${example})`);

const commit = srcCommit();
const met = (value: number) => (value <= GOAL_MS ? "met" : "not met");
const slowest = Math.max(...rounds);
const table = [
	`Measured ${new Date().toISOString().slice(0, 10)} on src/ as of commit ${commit} (built bundle): ${formatNumber(FILES, 0)} session files in ${FOLDERS} project folders, ${ROUNDS} rounds of ${IN_FLIGHT} commands naming unknown ids at once over ${IN_FLIGHT / MAX_CONCURRENT_COMMANDS} WebSockets (${COMMANDS.join(", ")}); median (min–max) over the rounds.`,
	"",
	"| metric | value (ms) | goal (ms) | met |",
	"|---|---|---|---|",
	`| slowest ping per round while the ${IN_FLIGHT} were in flight | ${medianWithSpread(rounds, 1, "min–max")} | ≤ ${GOAL_MS} | ${met(slowest)} (worst round ${formatNumber(slowest, 1)}) |`,
	`| ping between rounds (nothing else in flight), every ping | ${medianWithSpread(idle, 2, "p25–p75")} | – | – |`,
].join("\n");
console.log(table);
if (options.write) writeBenchSection("unknown-sessions", table);
