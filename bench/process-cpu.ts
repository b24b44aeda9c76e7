/**
 * CPU time of a process together with its descendants (user + system, from /proc/PID/stat), so that a reply's
 * cost can be compared between a Node service and a native one whatever their threads and helper processes.
 * Linux only. Read it before and after the work: the difference is what the tree spent on it.
 */
import { readFileSync } from "node:fs";
import { processTree } from "./process-rss.js";

/** Clock ticks per second of /proc's times (USER_HZ: 100 on Linux for every architecture Node runs on). */
const TICKS_PER_SECOND = 100;

/** utime + stime of one process, in ticks (its threads included); 0 once it has ended. */
function cpuTicks(pid: number): number {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		// After the command name: state is field 3, utime field 14 and stime field 15 of the whole line.
		return Number(fields[11]) + Number(fields[12]);
	} catch {
		return 0;
	}
}

/** CPU time spent so far by `pid` and its descendants living now, in ms (10 ms resolution). */
export function processTreeCpuMs(pid: number): number {
	return (processTree(pid).reduce((ticks, member) => ticks + cpuTicks(member), 0) * 1000) / TICKS_PER_SECOND;
}
