/**
 * One skiff per agent directory. The directory's files are each written by one process from what it holds
 * in memory (jobs/jobs.json, the workflows' records, the sessions that `sessions_prune` removes), and a
 * process that starts marks the jobs and workflows it finds running as interrupted: a second process on the
 * same directory would undo the first's work while it runs. So a service (listener or `--mode rpc`) claims
 * the directory before it binds or reads anything, with an owner record, `<agent-dir>/skiff.lock`: its pid,
 * its process's identity mark (process-liveness.ts), how it is reached. A second service finds the record
 * and refuses to start, naming the first; the record goes when its owner exits.
 *
 * The record appears whole or not at all (exclusive-file.ts). One whose owner no longer runs (SIGKILL, a
 * crash, a reboot, a pid given to another process since) is stale and is taken over. Judging a record stale
 * and removing it are two steps, so two starting processes could both judge it, and the slower one remove
 * the record the faster one has just written. So a stale record is removed only by the process that first
 * creates its takeover file, named for that very record's content (`skiff.lock.<digest>.takeover`), and
 * only while the record is still the one judged: no two processes ever remove the same record, and a new
 * record, having a new name for its own takeover, is never removed on the strength of an old judgment. A
 * takeover file holds its creator's record: one whose creator died halfway is stale in turn, and is taken
 * over the same way.
 */
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { writeFileAtomically } from "../shared/atomic-write.js";
import { createWholeExclusively } from "../shared/exclusive-file.js";
import { ownProcessMark, processRuns } from "../shared/process-liveness.js";

/** The owner record's name in the agent directory. */
export const OWNER_FILE = "skiff.lock";

/** How long a start waits for another process that is taking a stale record over (a few system calls). */
const CLAIM_WAIT_MS = 5_000;
const RETRY_MS = 5;

export type OwnerMode = "listener" | "rpc";

/** What the owner record holds (JSON, one line). */
export interface OwnerRecord {
	pid: number;
	/** The owner's identity mark where the system has one: a pid reused by another process does not match. */
	mark?: string;
	mode: OwnerMode;
	/** The listener's base URL, once it is bound. */
	url?: string;
	/** When the owner started (for a person reading the file). */
	since: string;
	/** Tells this record from any earlier one of the same pid. */
	nonce: string;
}

/** Another running skiff owns the agent directory. */
export class AgentDirInUseError extends Error {
	constructor(
		readonly agentDir: string,
		readonly owner: OwnerRecord,
	) {
		const how = owner.mode === "rpc" ? "--mode rpc" : owner.url ? `listening on ${owner.url}` : "starting its listener";
		// Without an identity mark (in the record, or on this system) a pid reused by another program after a
		// crash looks like the owner: say how to get past that.
		const unverified = owner.mark === undefined || ownProcessMark() === undefined;
		const hint = unverified ? ` (if no skiff runs as pid ${owner.pid}, remove ${join(agentDir, OWNER_FILE)})` : "";
		super(`another skiff (pid ${owner.pid}, ${how}) uses the agent directory ${agentDir}; stop it, or set SKIFF_AGENT_DIR to another directory${hint}`);
		this.name = "AgentDirInUseError";
	}
}

export interface AgentDirClaim {
	/** Records the listener's address once it is bound, so that a refused process can name it. */
	listening(url: string): void;
	/** Gives the directory up (if the record is still this claim's). Done on exit anyway; safe to call twice. */
	release(): void;
}

/** Nonces of the claims this process holds: a record with this pid and another nonce is a dead predecessor's. */
const held = new Set<string>();

/**
 * Claims `agentDir` for this process, taking over a stale record. Throws {@link AgentDirInUseError} while
 * another skiff runs there, and an error naming the file when the record cannot be written or read.
 */
export async function claimAgentDir(agentDir: string, mode: OwnerMode): Promise<AgentDirClaim> {
	const path = join(agentDir, OWNER_FILE);
	const record: OwnerRecord = { pid: process.pid, mark: ownProcessMark(), mode, since: new Date().toISOString(), nonce: randomBytes(8).toString("hex") };
	const deadline = Date.now() + CLAIM_WAIT_MS;
	for (;;) {
		if (fileError(path, () => createWholeExclusively(path, serialize(record)))) break;
		const found = fileError(path, () => readStored(path));
		if (found?.record && owns(found.record)) throw new AgentDirInUseError(agentDir, found.record);
		// Gone meanwhile (its owner released it), or stale and now removed: try again at once.
		if (found === undefined || fileError(path, () => removeStale(path, found, record))) continue;
		// Another process is taking this stale record over: that is a few system calls.
		if (Date.now() > deadline) {
			throw new Error(`could not claim the agent directory ${agentDir}: its ${OWNER_FILE} is stale, but another process has been taking it over for ${CLAIM_WAIT_MS / 1000} s; try again`);
		}
		await sleep(RETRY_MS);
	}
	held.add(record.nonce);
	let released = false;
	const release = () => {
		if (released) return;
		released = true;
		process.off("exit", release);
		held.delete(record.nonce);
		try {
			if (readStored(path)?.record?.nonce === record.nonce) rmSync(path, { force: true });
		} catch {
			// Nothing more can be done on the way out; the record is stale once this process has exited.
		}
	};
	// However the process ends but by SIGKILL or a crash of Node itself, the record goes with it.
	process.on("exit", release);
	return {
		listening(url) {
			if (released) return;
			record.url = url;
			try {
				writeFileAtomically(path, serialize(record));
			} catch {
				// Only the refusal's wording depends on it ("starting its listener" instead of the address).
			}
		},
		release,
	};
}

/** A record as found: its exact text (what a takeover compares) and, when it is one, the parsed record. */
interface Stored {
	text: string;
	record?: OwnerRecord;
}

function serialize(record: OwnerRecord): string {
	return `${JSON.stringify(record)}\n`;
}

/** The file at `path`, or undefined when there is none. */
function readStored(path: string): Stored | undefined {
	let text: string;
	try {
		text = readFileSync(path, "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
		throw error;
	}
	return { text, record: parseRecord(text) };
}

/** A URL the refusal may print: no control characters, so a damaged or forged record cannot write to the terminal. */
const PRINTABLE_URL = /^[\x21-\x7e]{1,300}$/;

/** The record in `text`, or undefined when it is not one (never written by skiff: a leftover, stale). */
function parseRecord(text: string): OwnerRecord | undefined {
	try {
		const value = JSON.parse(text) as Partial<OwnerRecord>;
		const valid =
			Number.isSafeInteger(value.pid) &&
			value.pid! > 0 &&
			typeof value.nonce === "string" &&
			(value.mode === "listener" || value.mode === "rpc") &&
			(value.mark === undefined || typeof value.mark === "string");
		if (!valid) return undefined;
		if (typeof value.url !== "string" || !PRINTABLE_URL.test(value.url)) delete value.url;
		return value as OwnerRecord;
	} catch {
		return undefined;
	}
}

/** Whether the process that wrote `record` still runs (this process only for the claims it holds). */
function owns(record: OwnerRecord): boolean {
	if (record.pid === process.pid) return held.has(record.nonce);
	return processRuns(record.pid, record.mark);
}

/**
 * Removes the stale `found` at `path`, if it is still there and no other process is removing it. True when
 * it is gone (the caller tries again at once), false when another process is taking it over (the caller
 * waits a moment).
 */
function removeStale(path: string, found: Stored, claimant: OwnerRecord): boolean {
	const takeover = `${path}.${createHash("sha256").update(found.text).digest("hex").slice(0, 16)}.takeover`;
	const mine: OwnerRecord = { ...claimant, nonce: randomBytes(8).toString("hex") };
	if (!createWholeExclusively(takeover, serialize(mine))) {
		const other = readStored(takeover);
		if (other === undefined) return true; // finished meanwhile
		if (other.record && owns(other.record)) return false;
		removeStale(takeover, other, claimant); // its creator died halfway: take the takeover over, then look again
		return false;
	}
	held.add(mine.nonce);
	try {
		if (readStored(path)?.text === found.text) rmSync(path, { force: true });
		return true;
	} finally {
		rmSync(takeover, { force: true });
		held.delete(mine.nonce);
	}
}

/** Runs a file operation on `path`, turning a system error into one that names the file and its purpose. */
function fileError<T>(path: string, operation: () => T): T {
	try {
		return operation();
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === undefined) throw error;
		throw new Error(`cannot claim the agent directory: ${path}, which marks it as used by one skiff, could not be written or read (${(error as Error).message})`);
	}
}
