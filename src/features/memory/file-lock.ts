/**
 * A cross-process lock for read-modify-write of one file: a lock file next to it, holding its owner's pid
 * and a random nonce. It appears whole (written to a temporary name, then hard-linked into place, which fails
 * when the lock exists), so a lock is never seen half-written.
 *
 * A lock whose owner is gone (it crashed), or that is older than the stale limit, is taken over. Judging a
 * lock stale and removing it are two steps; two processes doing them at once could each remove the lock the
 * other just took and both go in. So removals are serialized by a second, short-lived guard file, and inside
 * it the lock is judged again: it is removed only if it is still the very lock (same nonce) judged stale.
 */
import { randomBytes } from "node:crypto";
import { rmSync, statSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { createWholeExclusively } from "../../shared/exclusive-file.js";
import { processRuns } from "../../shared/process-liveness.js";
import { NotRegularFileError, readRegularFileSync } from "../../shared/regular-file.js";

/** How long to keep trying before giving up, and when a lock is considered abandoned. */
export const LOCK_WAIT_MS = 10_000;
export const LOCK_STALE_MS = 30_000;
/** The takeover guard is held for a few system calls; one older than this belonged to a process that died in them. */
const GUARD_STALE_MS = 2_000;
const RETRY_MS = 5;

export async function withFileLock<T>(target: string, action: () => T | Promise<T>): Promise<T> {
	const lockPath = `${target}.lock`;
	const identity = `${process.pid} ${randomBytes(8).toString("hex")}\n`;
	const deadline = Date.now() + LOCK_WAIT_MS;
	while (!createWholeExclusively(lockPath, identity)) {
		const judged = staleLock(lockPath);
		if (judged !== undefined && takeOver(lockPath, judged)) continue;
		if (Date.now() > deadline) throw new Error("memory store is locked by another process; try again");
		await sleep(RETRY_MS + Math.random() * RETRY_MS);
	}
	try {
		return await action();
	} finally {
		// Remove the lock only while it is still ours (a takeover after a very long action may have replaced it).
		if (readQuietly(lockPath) === identity) rmSync(lockPath, { force: true });
	}
}

/**
 * The content of the lock at `lockPath` when it is stale (its owner is gone, or it is too old), else undefined.
 * Something else than a regular file there (a FIFO, a link) is no lock this code made, and reading it could
 * wait for ever: it is an error naming it (see src/shared/regular-file.ts), for whoever put it there to remove.
 */
function staleLock(lockPath: string): string | undefined {
	try {
		const age = Date.now() - statSync(lockPath).mtimeMs;
		const content = readRegularFileSync(lockPath, "refuse");
		if (age > LOCK_STALE_MS) return content;
		const pid = Number(content.split(" ")[0]);
		if (!Number.isInteger(pid) || pid <= 0) return content; // not written by this lock: someone's leftover
		return processRuns(pid) ? undefined : content;
	} catch (error) {
		if (error instanceof NotRegularFileError) throw new Error(`memory store lock ${error.message}: remove it`);
		return undefined; // vanished meanwhile: just retry
	}
}

/**
 * Removes the lock judged stale, if it is still that lock, under the takeover guard. Returns whether the
 * caller should try to create the lock again at once.
 */
function takeOver(lockPath: string, judged: string): boolean {
	const guard = `${lockPath}.takeover`;
	if (!createWholeExclusively(guard, `${process.pid}\n`)) {
		if (ageOf(guard) > GUARD_STALE_MS) rmSync(guard, { force: true });
		return false;
	}
	try {
		if (readQuietly(lockPath) === judged && staleLock(lockPath) === judged) rmSync(lockPath, { force: true });
		return true;
	} finally {
		rmSync(guard, { force: true });
	}
}

function readQuietly(path: string): string | undefined {
	try {
		return readRegularFileSync(path, "refuse");
	} catch {
		return undefined;
	}
}

function ageOf(path: string): number {
	try {
		return Date.now() - statSync(path).mtimeMs;
	} catch {
		return 0;
	}
}
