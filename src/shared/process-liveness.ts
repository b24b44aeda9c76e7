/**
 * Whether the process that wrote a record (a lock) still runs. A pid alone is not enough: after a crash the
 * pid can be given to another process (in a container, the same small pids come back on every start). So a
 * record also keeps a mark of its process's identity where the system offers one: on Linux the boot's id and
 * the process's start time (in clock ticks since boot, /proc/<pid>/stat), which together name one process
 * of one boot. Elsewhere the mark is absent and the pid's existence is all that can be checked.
 */
import { readFileSync } from "node:fs";

/** This process's identity mark, for a record it writes; undefined where the system offers none. */
export function ownProcessMark(): string | undefined {
	const own = procStat(process.pid);
	return typeof own === "object" ? own.mark : undefined;
}

/** Whether the process that recorded `pid` and `mark` (its {@link ownProcessMark} then, if any) still runs. */
export function processRuns(pid: number, mark?: string): boolean {
	try {
		process.kill(pid, 0);
	} catch (error) {
		// EPERM: it exists, owned by another user (whose /proc entries may be hidden from this one)
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
	const now = procStat(pid);
	if (now === "unknown") return true; // no /proc: the pid exists, nothing more is known
	if (now === "gone" || now.exited) return false; // exited meanwhile, or a zombie its parent has not collected yet
	return mark === undefined || mark === now.mark;
}

/** What /proc says of process `pid`: its identity mark and whether it has exited, or that it is gone. */
function procStat(pid: number): { mark: string; exited: boolean } | "gone" | "unknown" {
	let bootId: string;
	let stat: string;
	try {
		bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
	} catch {
		return "unknown";
	}
	try {
		stat = readFileSync(`/proc/${pid}/stat`, "utf8");
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "ENOENT" ? "gone" : "unknown";
	}
	// The command name (field 2) is in parentheses and may itself hold spaces and parentheses; the fields after
	// its last ")" are field 3 (the state) onwards, so field 22, the start time, is the 20th of them.
	const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	const [state, startTime] = [fields[0], fields[19]];
	if (!bootId || !state || !startTime) return "unknown";
	return { mark: `${bootId}/${startTime}`, exited: state === "Z" || state === "X" };
}
