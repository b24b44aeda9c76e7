/**
 * Resident memory and CPU time of a process together with its descendants, as the peer baselines count them
 * (summed over the process tree). Linux only: it reads /proc.
 */
import { readdirSync, readFileSync } from "node:fs";

const KIB_PER_MIB = 1024;
/** Clock ticks per second of /proc/PID/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** The fields of /proc/PID/stat after the parenthesised command name (state is [0]), or undefined once it ended. */
function statFields(pid: number | string): string[] | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	} catch {
		return undefined; // the process ended while we looked
	}
}

function rssKib(pid: number): number {
	try {
		return Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
	} catch {
		return 0;
	}
}

/** `pid` and all its descendants. */
export function processTree(pid: number): number[] {
	const children = new Map<number, number[]>();
	for (const entry of readdirSync("/proc")) {
		if (!/^\d+$/.test(entry)) continue;
		const parent = statFields(entry)?.[1];
		if (parent !== undefined) children.set(Number(parent), [...(children.get(Number(parent)) ?? []), Number(entry)]);
	}
	const tree: number[] = [];
	const pending = [pid];
	for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
		tree.push(next);
		pending.push(...(children.get(next) ?? []));
	}
	return tree;
}

/** VmRSS of `pid` and all its descendants, in MiB. */
export function processTreeRssMiB(pid: number): number {
	return processTree(pid).reduce((kib, p) => kib + rssKib(p), 0) / KIB_PER_MIB;
}

/**
 * CPU time (user + system) used so far by `pid` and its live descendants, in ms (10 ms resolution). The
 * difference of two readings is what the tree used between them, as long as no descendant ended in between.
 */
export function processTreeCpuMs(pid: number): number {
	let ticks = 0;
	for (const p of processTree(pid)) {
		const fields = statFields(p);
		if (fields) ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
	}
	return (ticks * 1000) / TICKS_PER_SECOND;
}
