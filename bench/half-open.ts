/**
 * Half-open connections (issue 21, item 6): 300 TCP connections from 20 loopback addresses each send part of a
 * WebSocket upgrade's headers, read whatever comes and then wait (the stress scenario's `stallQuietly`,
 * stress/scenarios/half-open.ts). Each is timed from when it was opened to when the service closed it: evicted
 * early by the cap on connections waiting for headers, or closed at the header deadline (10 s, docs/security.md,
 * each on a timer of its own; the documented allowance is 1 s). The goal: every one closed within that.
 * Usage: node --import tsx bench/half-open.ts [-- --write] (after `npm run build`; about 12 s a round)
 */
import type { Socket } from "node:net";
import { HEADERS_TIMEOUT_MS } from "../src/listener/limits.js";
import { stallQuietly } from "../stress/scenarios/half-open.js";
import { startService } from "../stress/service.js";
import { writeBenchSection } from "./doc-section.js";
import { readBenchOptions } from "./options.js";
import { srcCommit } from "./src-commit.js";
import { formatNumber, medianWithSpread } from "../stress/stats.js";

const CONNECTIONS = 300;
const ROUNDS = 3;
/** The allowance docs/security.md states past the header deadline. */
const ALLOWANCE_MS = 1_000;
const GOAL_MS = HEADERS_TIMEOUT_MS + ALLOWANCE_MS;
/** How long a round waits for the last close (the issue counted what was still open 13 s later). */
const WAIT_MS = HEADERS_TIMEOUT_MS + 3_000;

const options = readBenchOptions();

interface Round {
	closed: number;
	longestMs: number;
	atDeadline: number;
}

/** Opens the connections and resolves once every one is closed, or WAIT_MS after opening them. */
async function round(port: number): Promise<Round> {
	const opened = performance.now();
	const sockets = await stallQuietly(port, CONNECTIONS);
	const lifetimes = await Promise.all(
		sockets.map(
			(socket: Socket) =>
				new Promise<number | undefined>((resolve) => {
					// A socket already closed (evicted while the others connected) lived at most this long.
					if (socket.closed) return resolve(performance.now() - opened);
					const timer = setTimeout(() => resolve(undefined), WAIT_MS - (performance.now() - opened));
					socket.once("close", () => {
						clearTimeout(timer);
						resolve(performance.now() - opened);
					});
				}),
		),
	);
	for (const socket of sockets) socket.destroy();
	const closed = lifetimes.filter((ms): ms is number => ms !== undefined);
	return {
		closed: closed.length,
		longestMs: closed.length < CONNECTIONS ? Number.POSITIVE_INFINITY : Math.max(...closed),
		atDeadline: closed.filter((ms) => ms >= HEADERS_TIMEOUT_MS).length,
	};
}

const service = await startService();
const rounds: Round[] = [];
try {
	const port = Number(new URL(service.skiff.url).port);
	for (let i = 0; i < ROUNDS; i++) rounds.push(await round(port));
} finally {
	await service.stop();
}

const commit = srcCommit();
const stillOpen = Math.max(...rounds.map((r) => CONNECTIONS - r.closed));
const worst = Math.max(...rounds.map((r) => r.longestMs));
const table = [
	`Measured ${new Date().toISOString().slice(0, 10)} on src/ as of commit ${commit} (built bundle): ${ROUNDS} rounds of ${CONNECTIONS} connections from 20 loopback addresses that send half an upgrade request and wait, each timed from opening to the service's close; median (min–max) over the rounds.`,
	"",
	"| metric | value | goal | met |",
	"|---|---|---|---|",
	`| connections still open ${formatNumber(WAIT_MS / 1000, 0)} s after opening (of ${CONNECTIONS}) | ${medianWithSpread(rounds.map((r) => CONNECTIONS - r.closed), 0, "min–max")} | 0 | ${stillOpen === 0 ? "met" : "not met"} |`,
	`| the longest-lived connection (ms) | ${medianWithSpread(rounds.map((r) => r.longestMs), 0, "min–max")} | ≤ ${formatNumber(GOAL_MS, 0)} (the ${HEADERS_TIMEOUT_MS / 1000} s header deadline + ${ALLOWANCE_MS / 1000} s) | ${worst <= GOAL_MS ? "met" : "not met"} |`,
	`| closed at the deadline rather than evicted earlier by the cap on waiting connections | ${medianWithSpread(rounds.map((r) => r.atDeadline), 0, "min–max")} | – | – |`,
].join("\n");
console.log(table);
if (options.write) writeBenchSection("half-open", table);
