/**
 * A cross-process lock for read-modify-write of one file: an exclusive lock file created with O_EXCL next
 * to it, holding the owner's pid. A lock whose owner is gone (it crashed), or that is older than the stale
 * limit, is taken over.
 */
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/** How long to keep trying before giving up, and when a lock is considered abandoned. */
export const LOCK_WAIT_MS = 10_000;
export const LOCK_STALE_MS = 30_000;
const RETRY_MS = 5;
const UNWRITTEN_LOCK_MS = 2_000;

export async function withFileLock<T>(target: string, action: () => T | Promise<T>): Promise<T> {
	const lockPath = `${target}.lock`;
	const deadline = Date.now() + LOCK_WAIT_MS;
	for (;;) {
		try {
			const fd = openSync(lockPath, "wx", 0o600);
			writeSync(fd, `${process.pid}\n`);
			closeSync(fd);
			break;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
			if (isStale(lockPath)) {
				rmSync(lockPath, { force: true });
				continue;
			}
			if (Date.now() > deadline) throw new Error("memory store is locked by another process; try again");
			await sleep(RETRY_MS + Math.random() * RETRY_MS);
		}
	}
	try {
		return await action();
	} finally {
		rmSync(lockPath, { force: true });
	}
}

function isStale(lockPath: string): boolean {
	try {
		const age = Date.now() - statSync(lockPath).mtimeMs;
		if (age > LOCK_STALE_MS) return true;
		const pid = Number(readFileSync(lockPath, "utf8").trim());
		// No pid a moment after creation: its owner died between creating and writing it.
		if (!Number.isInteger(pid) || pid <= 0) return age > UNWRITTEN_LOCK_MS;
		return !processAlive(pid);
	} catch {
		return false; // vanished meanwhile (or being written): just retry
	}
}

function processAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}
