/**
 * Resident memory of a process together with its descendants, as the peer baselines count it (VmRSS summed
 * over the process tree). Linux only: it reads /proc.
 */
import { readdirSync, readFileSync } from "node:fs";

const KIB_PER_MIB = 1024;

/** The parent pid in /proc/PID/stat (the field after the parenthesised command name). */
function parentOf(pid: string): number | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
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

/** `pid` and all its descendants living now. */
export function processTree(pid: number): number[] {
	const children = new Map<number, number[]>();
	for (const entry of readdirSync("/proc")) {
		if (!/^\d+$/.test(entry)) continue;
		const parent = parentOf(entry);
		if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
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
	return processTree(pid).reduce((kib, member) => kib + rssKib(member), 0) / KIB_PER_MIB;
}
