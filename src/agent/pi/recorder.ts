/**
 * The session recorder policy. pi's SessionManager writes a new session file only when the first assistant
 * message arrives, so a prompt accepted just before a crash would be lost. Skiff records a conversation from
 * its first message of any role, and waits for that write before the model is called.
 */
import { appendFileSync, writeFileSync } from "node:fs";
import type { SessionManager } from "@mariozechner/pi-coding-agent";

/** The parts of pi's SessionManager that its persistence uses (not in its public typings). */
interface SessionManagerInternals {
	persist: boolean;
	flushed: boolean;
	sessionFile: string | undefined;
	fileEntries: Array<{ type: string; message?: unknown }>;
	_persist(entry: unknown): void;
}

/** How long the pre-request check waits for pi's queued event processing to record the prompt. */
const RECORD_WAIT_LIMIT_MS = 2000;

/**
 * Replaces pi's lazy persistence on one SessionManager with eager persistence: the file is written as soon
 * as the conversation holds a message, then appended entry by entry, exactly as pi itself would later.
 * Throws if pi's internals changed shape, so an upgrade cannot silently lose prompts.
 */
export function recordEagerly(manager: SessionManager): void {
	const internals = manager as unknown as SessionManagerInternals;
	if (typeof internals._persist !== "function" || !Array.isArray(internals.fileEntries)) {
		throw new Error("pi SessionManager internals changed: eager session recording needs updating");
	}
	const persist = (entry: unknown) => {
		if (!internals.persist || !internals.sessionFile) return;
		if (!internals.fileEntries.some((e) => e.type === "message")) {
			internals.flushed = false;
			return;
		}
		if (internals.flushed) {
			appendFileSync(internals.sessionFile, `${JSON.stringify(entry)}\n`);
			return;
		}
		writeAll(internals);
	};
	internals._persist = (entry: unknown) => {
		persist(entry);
		for (const check of [...(watchers.get(manager) ?? [])]) check();
	};
	// A branched or forked manager may hold messages that were never written.
	if (internals.persist && internals.sessionFile && !internals.flushed) {
		if (internals.fileEntries.some((e) => e.type === "message")) writeAll(internals);
	}
}

function writeAll(internals: SessionManagerInternals): void {
	const content = internals.fileEntries.map((e) => JSON.stringify(e)).join("\n");
	writeFileSync(internals.sessionFile!, `${content}\n`);
	internals.flushed = true;
}

/** A message as the recorder sees it: pi stamps every user, assistant and tool message with a timestamp. */
interface StampedMessage {
	role?: unknown;
	timestamp?: unknown;
}

/** The recorded messages of a session manager, oldest first. */
function recordedMessages(manager: SessionManager): StampedMessage[] {
	const internals = manager as unknown as SessionManagerInternals;
	return internals.fileEntries.filter((e) => e.type === "message").map((e) => e.message as StampedMessage);
}

/** How many user messages are recorded; a prompt is recorded once this grows. */
export function recordedUserMessages(manager: SessionManager): number {
	return recordedMessages(manager).filter((m) => m.role === "user").length;
}

/** Checks to run after every entry a manager records (see waitFor). */
const watchers = new WeakMap<SessionManager, Set<() => void>>();

/**
 * Resolves once `recorded()` holds. pi appends messages from a queue that runs shortly after the agent loop
 * emits them; every append re-runs the check, so this resolves the moment the entry is on disk (or gives up
 * after a bounded wait rather than stall a turn).
 */
function waitFor(manager: SessionManager, recorded: () => boolean): Promise<void> {
	if (!(manager as unknown as SessionManagerInternals).persist || recorded()) return Promise.resolve();
	return new Promise((resolve) => {
		let checks = watchers.get(manager);
		if (!checks) watchers.set(manager, (checks = new Set()));
		const done = () => {
			checks.delete(check);
			clearTimeout(timer);
			resolve();
		};
		const check = () => {
			if (recorded()) done();
		};
		const timer = setTimeout(done, RECORD_WAIT_LIMIT_MS);
		checks.add(check);
	});
}

/** Resolves once more than `before` user messages are recorded (the prompt just accepted is on disk). */
export function waitForUserMessage(manager: SessionManager, before: number): Promise<void> {
	return waitFor(manager, () => recordedUserMessages(manager) > before);
}

/**
 * Resolves once `message` (a copy of a message about to be sent to the model: pi clones the context, so
 * identity is role plus timestamp) is recorded.
 */
export function waitUntilRecorded(manager: SessionManager, message: StampedMessage): Promise<void> {
	return waitFor(manager, () =>
		recordedMessages(manager).some((m) => m.role === message.role && m.timestamp === message.timestamp),
	);
}
