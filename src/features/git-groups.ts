/**
 * The process groups of the git commands the service started (each git runs in its own group, git.ts), so that
 * every git and whatever it started stop with the service, whatever the timing:
 *
 * - a group is kept until no process is left in it, not until git answered: a hook may leave a process behind
 *   in git's group (`sleep 60 &` with its output elsewhere) that outlives git's answer;
 * - the service's shutdown stops them (`stopGitGroups`, awaited by src/core.ts): SIGTERM (git removes its lock
 *   files on it), then SIGKILL to whatever is left after a grace: a hook may ignore SIGTERM;
 * - at the process's exit, whatever is still there (a git started during the shutdown, or an exit that skipped
 *   it: a second Ctrl-C) gets SIGTERM, and SIGKILL after the grace from a small detached shell, since nothing of
 *   this process is left to send it (SIGKILL at once would leave git's lock files behind).
 *
 * A process that leaves the group on purpose (`setsid`) is out of reach here; git's own detaching maintenance is
 * turned off for the service's git (git.ts, SERVICE_GIT_CONFIG).
 */
import { spawn } from "node:child_process";
import { groupAlive, signalGroup } from "../shared/process-group.js";

/** After a SIGTERM, how long a group has to end before SIGKILL. */
export const GIT_KILL_GRACE_MS = 2_000;
/** How often the groups whose git answered are checked for being empty (so they are forgotten). */
const PRUNE_INTERVAL_MS = 1_000;
/** How often stopGitGroups looks whether the groups it signalled have ended. */
const STOP_POLL_MS = 25;

/** The groups whose git is running, or whose git answered but left processes behind. */
const groups = new Set<number>();
/** Of those, the groups whose git answered: forgotten once empty. */
const answered = new Set<number>();
let pruneTimer: NodeJS.Timeout | undefined;
let stopsAtExit = false;

/** Tracks the group of a git just started (its pid: git leads its own group). */
export function trackGroup(pgid: number): void {
	groups.add(pgid);
	answered.delete(pgid); // a pid used again, by a new git of ours
	if (stopsAtExit) return;
	stopsAtExit = true;
	process.once("exit", stopAtExit);
}

/** At the exit: SIGTERM to every group left, and SIGKILL after the grace by a shell that outlives this process. */
function stopAtExit(): void {
	const live = [...groups].filter(groupAlive);
	if (live.length === 0) return;
	for (const group of live) signalGroup(group, "SIGTERM");
	try {
		const seconds = (GIT_KILL_GRACE_MS / 1000).toFixed(3);
		const targets = live.map((group) => `-${group}`).join(" ");
		spawn("/bin/sh", ["-c", `sleep ${seconds}; kill -s KILL -- ${targets} 2>/dev/null`], { detached: true, stdio: "ignore" }).unref();
	} catch {
		for (const group of live) signalGroup(group, "SIGKILL"); // no shell: lock files left rather than a process
	}
}

/**
 * git answered (or was given up on): the group is forgotten at once when empty, else once it is (checked every
 * PRUNE_INTERVAL_MS), and until then stopped with the service. Forgetting an empty group promptly matters: its
 * number may be used again, by a process that is not ours.
 */
export function releaseGroup(pgid: number): void {
	if (!groups.has(pgid)) return;
	if (!groupAlive(pgid)) {
		groups.delete(pgid);
		return;
	}
	answered.add(pgid);
	pruneTimer ??= setInterval(prune, PRUNE_INTERVAL_MS).unref();
}

/** SIGTERM to a group now, and SIGKILL after the grace when anything of it is left (its git is not waited for). */
export function stopGroup(pgid: number, graceMs = GIT_KILL_GRACE_MS): void {
	signalGroup(pgid, "SIGTERM");
	setTimeout(() => {
		if (groups.has(pgid) && groupAlive(pgid)) signalGroup(pgid, "SIGKILL");
	}, graceMs).unref();
}

/**
 * Stops every git of the service and what it started: SIGTERM to each group, then SIGKILL to those not ended
 * within `graceMs`. Resolves once every group is empty or was sent SIGKILL.
 */
export async function stopGitGroups(graceMs = GIT_KILL_GRACE_MS): Promise<void> {
	const live = [...groups].filter((group) => groupAlive(group) || (forget(group), false));
	for (const group of live) signalGroup(group, "SIGTERM");
	for (const deadline = Date.now() + graceMs; live.some(groupAlive) && Date.now() < deadline; ) {
		await new Promise((resolve) => setTimeout(resolve, STOP_POLL_MS));
	}
	for (const group of live) {
		if (groupAlive(group)) signalGroup(group, "SIGKILL");
		else forget(group);
	}
}

/** How many groups are tracked now (for tests). */
export function trackedGroupCount(): number {
	return groups.size;
}

function forget(pgid: number): void {
	groups.delete(pgid);
	answered.delete(pgid);
}

function prune(): void {
	for (const group of answered) if (!groupAlive(group)) forget(group);
	if (answered.size === 0 && pruneTimer) {
		clearInterval(pruneTimer);
		pruneTimer = undefined;
	}
}
