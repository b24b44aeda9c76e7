/**
 * Signals to a process group (a child spawned `detached` leads a group of its own, so it and whatever it started
 * are reached together): git commands (features/git-groups.ts) and MCP servers (features/mcp/stdio-transport.ts).
 */

/** Sends `signal` to every process of group `pgid`; a group that has ended already is no error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pgid, signal);
	} catch {
		// ended already
	}
}

/** Whether any process of our group `pgid` is left (one we may not signal is not ours: the number was used again). */
export function groupAlive(pgid: number): boolean {
	try {
		process.kill(-pgid, 0);
		return true;
	} catch {
		return false;
	}
}
