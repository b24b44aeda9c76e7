/**
 * Where a command's CPU goes, by kind of process: a measuring tool for the suite's time, not part of `npm test`.
 *
 *   node --import tsx test/support/cpu-by-process.ts [--json FILE] -- COMMAND [ARG …]
 *   e.g. node --import tsx test/support/cpu-by-process.ts -- node --import tsx test/support/run-suite.ts
 *
 * Runs COMMAND and reads /proc/<pid>/stat of each of its descendants every 200 ms (linux only), keeping each
 * process's last CPU figures. A process that lived less than a sampling interval (most git commands) is never
 * seen: its CPU shows in its parent's reaped-children time (cutime + cstime), and what a parent had reaped beyond
 * the seen children it outlived is counted as "unseen children of" the parent's kind. A process's CPU after its
 * last sample (under 200 ms of it) is missed. The reaped time of this process is no total: Chromium leaves its
 * renderers to init, whose CPU then reaches no ancestor.
 *
 * Why sampling and not process accounting: acct(2) needs a capability containers often lack, and ps(1) at exit
 * misses every process that ended before. Its own CPU (run with tsx) is not in the figures: it is no child of itself.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";

const TICKS_PER_SECOND = 100; // USER_HZ on linux
const INTERVAL_MS = 200;

interface Seen {
	pid: number;
	ppid: number;
	start: number;
	args: string;
	kind: string;
	/** Own user and system ticks at the last sample. */
	user: number;
	system: number;
	/** Waited-for children's ticks (with theirs) at the last sample. */
	reaped: number;
	/** Last sample's sequence number: the process was alive then. */
	lastSeen: number;
}

/** Names a process by what it runs; the order matters (a test file's node runs tsx too). */
export function kindOf(args: string, comm: string): string {
	if (/chrom(e|ium)/i.test(comm) || /\/chrom(e|ium)/.test(args)) {
		const type = /--type=([\w-]+)/.exec(args)?.[1];
		if (!type) return "chromium: browser";
		if (type === "utility") return `chromium: utility (${/--utility-sub-type=([\w.]+)/.exec(args)?.[1]?.split(".").pop() ?? "?"})`;
		return `chromium: ${type}`;
	}
	if (comm === "git" || /^git( |$)/.test(args) || /\/git(-[\w-]+)?( |$)/.test(args)) return "git";
	if (/\bnode\b/.test(comm) || /^(\S*\/)?node /.test(args)) {
		if (/run-suite\.ts/.test(args)) return "node: suite runner";
		if (/\.test\.ts\b/.test(args)) return `node: test file (${/test\/(\w+)\//.exec(args)?.[1] ?? "?"})`;
		if (/bin\/skiff|dist\/(cli|service|bin)|skiff\.mjs|dist\/.*\.m?js/.test(args)) return "node: skiff service (dist)";
		if (/fake-|mcp|hindsight/.test(args)) return "node: fake servers and test helpers";
		if (/cpu-by-process/.test(args)) return "node: this sampler";
		return `node: other (${args.slice(0, 60)})`;
	}
	if (comm === "sh" || comm === "bash") return "shell";
	return `other: ${comm}`;
}

function readStat(pid: string): { ppid: number; comm: string; user: number; system: number; reaped: number; start: number } | undefined {
	let text: string;
	try {
		text = readFileSync(`/proc/${pid}/stat`, "utf8");
	} catch {
		return undefined; // ended meanwhile
	}
	const close = text.lastIndexOf(")");
	const comm = text.slice(text.indexOf("(") + 1, close);
	const fields = text.slice(close + 2).split(" "); // fields[0] is field 3 (state)
	const n = (field: number) => Number(fields[field - 3]);
	return { ppid: n(4), comm, user: n(14), system: n(15), reaped: n(16) + n(17), start: n(22) };
}

function readArgs(pid: string): string {
	try {
		return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
	} catch {
		return "";
	}
}

function selfReaped(): number {
	return readStat("self")!.reaped;
}

async function main(): Promise<void> {
	const argv = process.argv.slice(2);
	const dash = argv.indexOf("--");
	if (dash < 0 || dash === argv.length - 1) throw new Error("usage: node --import tsx test/support/cpu-by-process.ts [--json FILE] -- COMMAND [ARG …]");
	const options = argv.slice(0, dash);
	const jsonFile = options[options.indexOf("--json") + 1];
	const [command, ...args] = argv.slice(dash + 1) as [string, ...string[]];
	const reapedBefore = selfReaped();
	const started = performance.now();
	const child = spawn(command, args, { stdio: "inherit" });
	const root = child.pid!;
	const seen = new Map<string, Seen>(); // by pid and start time: pids are reused
	const tracked = new Set<number>([root]);
	let sequence = 0;

	const sample = () => {
		sequence++;
		const stats = new Map<number, NonNullable<ReturnType<typeof readStat>> & { pid: string }>();
		for (const pid of readdirSync("/proc")) {
			if (!/^\d+$/.test(pid)) continue;
			const stat = readStat(pid);
			if (stat) stats.set(Number(pid), { ...stat, pid });
		}
		// Descendants: a process whose parent is tracked (repeated until no more are found: parents may be read after children).
		let grew = true;
		const current = new Set<number>();
		while (grew) {
			grew = false;
			for (const [pid, stat] of stats) {
				if (current.has(pid)) continue;
				const key = `${pid}:${stat.start}`;
				if (pid === root || seen.has(key) || current.has(stat.ppid)) {
					current.add(pid);
					grew = true;
				}
			}
		}
		for (const pid of current) {
			const stat = stats.get(pid)!;
			const key = `${pid}:${stat.start}`;
			let entry = seen.get(key);
			if (!entry) {
				const argsText = readArgs(stat.pid);
				entry = { pid, ppid: stat.ppid, start: stat.start, args: argsText, kind: kindOf(argsText, stat.comm), user: 0, system: 0, reaped: 0, lastSeen: 0 };
				seen.set(key, entry);
			}
			Object.assign(entry, { user: stat.user, system: stat.system, reaped: stat.reaped, lastSeen: sequence });
			tracked.add(pid);
		}
	};
	const timer = setInterval(sample, INTERVAL_MS);
	sample();
	const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
	clearInterval(timer);
	const wallSeconds = (performance.now() - started) / 1000;
	const total = selfReaped() - reapedBefore;

	const byKind = new Map<string, { ticks: number; count: number; user: number; system: number }>();
	const add = (kind: string, ticks: number, count: number, user = 0, system = 0) => {
		const k = byKind.get(kind) ?? { ticks: 0, count: 0, user: 0, system: 0 };
		k.ticks += ticks;
		k.count += count;
		k.user += user;
		k.system += system;
		byKind.set(kind, k);
	};
	const entries = [...seen.values()];
	const childrenOf = (e: Seen) => entries.filter((c) => c.ppid === e.pid && c.start >= e.start);
	const subtree = (e: Seen): number => e.user + e.system + childrenOf(e).reduce((sum, c) => sum + subtree(c), 0);
	for (const e of entries) {
		add(e.kind, e.user + e.system, 1, e.user, e.system);
		// What it had reaped by its last sample beyond the seen children (with theirs) that had ended by then: never
		// more than the unseen took (an orphan's CPU, counted in its subtree though another reaped it, only lowers it).
		const known = childrenOf(e)
			.filter((c) => c.lastSeen < e.lastSeen)
			.reduce((sum, c) => sum + subtree(c), 0);
		if (e.reaped > known) add(`unseen children of ${e.kind}`, e.reaped - known, 0);
	}
	const accounted = [...byKind.values()].reduce((sum, k) => sum + k.ticks, 0);
	const rows = [...byKind.entries()].sort((a, b) => b[1].ticks - a[1].ticks);
	const s = (ticks: number) => (ticks / TICKS_PER_SECOND).toFixed(1).padStart(8);
	console.log(`\nCPU by kind of process (${wallSeconds.toFixed(1)} s wall, exit ${code}):`);
	console.log(`${"CPU s".padStart(8)} ${"user".padStart(8)} ${"system".padStart(8)} ${"count".padStart(6)}  kind`);
	for (const [kind, k] of rows) console.log(`${s(k.ticks)} ${s(k.user)} ${s(k.system)} ${String(k.count).padStart(6)}  ${kind}`);
	console.log(`${s(accounted)} in all; ${s(total).trim()} s reaped by this process (less: what the processes' parents left to init)`);
	if (jsonFile) {
		writeFileSync(
			jsonFile,
			JSON.stringify({ wallSeconds, totalSeconds: accounted / TICKS_PER_SECOND, reapedSeconds: total / TICKS_PER_SECOND, kinds: Object.fromEntries(rows.map(([kind, k]) => [kind, { seconds: k.ticks / TICKS_PER_SECOND, count: k.count }])), processes: entries }, null, "\t"),
		);
	}
	process.exitCode = code ?? 1;
}

await main();
