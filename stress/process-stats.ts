/** Resident memory and open file descriptors of a process, read from /proc (Linux only). */
import { readdirSync, readFileSync } from "node:fs";

/** VmRSS of `pid` in MiB (0 once it has exited). */
export function rssMiB(pid: number): number {
	try {
		const kib = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
		return kib / 1024;
	} catch {
		return 0;
	}
}

/** How many file descriptors `pid` holds open (entries of /proc/PID/fd). */
export function openFds(pid: number): number {
	try {
		return readdirSync(`/proc/${pid}/fd`).length;
	} catch {
		return 0;
	}
}

/** The 1-minute load average and the core count, for the report's context. */
export function machineLoad(): { load1: number; cores: number } {
	const [load1] = readFileSync("/proc/loadavg", "utf8").split(" ");
	return { load1: Number(load1), cores: readFileSync("/proc/cpuinfo", "utf8").split("\n").filter((l) => l.startsWith("processor")).length };
}
