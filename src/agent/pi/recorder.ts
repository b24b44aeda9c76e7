/**
 * The session recorder policy. pi's SessionManager writes a new session file only when the first assistant
 * message arrives, and appends without checking that the write succeeded. Skiff records a session from its
 * first entry that holds something of the user's (a message of any role, a feature's custom entry such as a
 * todo plan or a goal, a name, a label: not the model and thinking level every new session starts with), writes
 * new files atomically (temp file, then rename), appends entry by entry, and knows which entries are really on
 * disk: an entry whose write failed (a full or read-only disk) stays in a backlog that the next write retries,
 * after cutting any half-written line off the file, so the file never holds a torn line followed by more
 * entries. A change that must not be acknowledged unless it is on disk (a feature's command) is appended with
 * `appendOrRefuse`, which takes the entry back out when it could not be written.
 */
import { PRIVATE_FILE_MODE, writeFileAtomically } from "../../shared/atomic-write.js";
import { CodedError } from "../../shared/errors.js";
import { closeSync, fdatasyncSync, openSync, statSync, truncateSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";
import type { SessionManager } from "@mariozechner/pi-coding-agent";
import { ORIGIN_ENTRY_TYPE } from "./session-origin.js";

/** The parts of pi's SessionManager that its persistence uses (not in its public typings). */
interface SessionManagerInternals {
	persist: boolean;
	flushed: boolean;
	sessionFile: string | undefined;
	fileEntries: Array<{ type: string; id?: string; parentId?: string | null; message?: unknown; customType?: string }>;
	byId: Map<string, unknown>;
	leafId: string | null;
	_persist(entry: unknown): void;
	_rewriteFile(): void;
}

/** A message as the recorder sees it: pi stamps every user, assistant and tool message with a timestamp. */
interface StampedMessage {
	role?: unknown;
	timestamp?: unknown;
}

/** Why the recording of a session failed, in words a user can act on (never file contents). */
export class RecordingError extends CodedError {
	constructor(
		/** The system error code (ENOSPC, EROFS, ...); the wire code is `io_error`. */
		readonly systemCode: string,
		readonly file: string,
		cause: unknown,
	) {
		super(systemCode === CHANGED_ON_DISK ? "conflict" : "io_error", `Could not record the session to ${file}: ${describeWriteError(systemCode, cause)}`);
		this.name = "RecordingError";
	}
}

/** The recorder's own code for a session file that another program changed since Skiff last wrote it. */
export const CHANGED_ON_DISK = "ECHANGED";

/** Entries every new session starts with (the model and thinking level in use): alone they are not worth a file. */
const SETUP_ENTRY_TYPES = new Set(["session", "model_change", "thinking_level_change"]);

/** How long a prompt may wait for pi to hand its entry to the recorder before the prompt fails. */
const RECORD_WAIT_LIMIT_MS = 10_000;

/** What the recorder tells its session: the recording failed, or works again. */
export type RecordingListener = (failure: RecordingError | undefined) => void;

/** The file operations the recorder needs; tests replace them to fail like a full or read-only disk. */
export interface RecorderFiles {
	/** Replaces `path` with `content` atomically: a temporary file, synced, renamed over it, the folder synced. */
	replace(path: string, content: string): void;
	append(path: string, text: string): void;
	size(path: string): number;
	truncate(path: string, size: number): void;
	/** Flushes the file's data to the disk. */
	sync(path: string): Promise<void>;
	/** Flushes the file's data to the disk before returning. */
	syncNow(path: string): void;
}

export const REAL_FILES: RecorderFiles = {
	replace: (path, content) => writeFileAtomically(path, content, { mode: PRIVATE_FILE_MODE }),
	append(path, text) {
		const fd = openSync(path, "a");
		try {
			writeAll(fd, text);
		} finally {
			closeSync(fd);
		}
	},
	size: (path) => statSync(path).size,
	truncate: (path, size) => truncateSync(path, size),
	async sync(path) {
		const handle = await open(path, "r");
		try {
			await handle.datasync();
		} finally {
			await handle.close();
		}
	},
	syncNow(path) {
		const fd = openSync(path, "r");
		try {
			fdatasyncSync(fd);
		} finally {
			closeSync(fd);
		}
	},
};

export class SessionRecorder {
	/** Entries known to be on disk (by identity: pi's entry objects). */
	private readonly written = new WeakSet<object>();
	/** Entries accepted by pi but not yet on disk, oldest first. */
	private backlog: object[] = [];
	/** The file's size after the last successful write: anything beyond it is a half-written line. */
	private goodSize: number | undefined;
	/** The last append failed and may have left part of its text at the end of the file. */
	private mayBeTorn = false;
	private failure: RecordingError | undefined;
	/** How many writes have failed so far: a wait fails only on a failure after it began. */
	private failures = 0;
	private readonly checks = new Set<() => void>();
	private readonly listeners = new Set<RecordingListener>();
	private readonly appendListeners = new Set<(entry: object) => void>();
	/** While `appendOrRefuse` runs: the entries appended, announced only once they are known to be on disk. */
	private unannounced: object[] | undefined;

	constructor(
		private readonly manager: SessionManager,
		private readonly files: RecorderFiles = REAL_FILES,
	) {
		const internals = this.internals;
		if (typeof internals._persist !== "function" || typeof internals._rewriteFile !== "function" || !Array.isArray(internals.fileEntries) || !(internals.byId instanceof Map)) {
			throw new Error("pi SessionManager internals changed: eager session recording needs updating");
		}
		internals._persist = (entry: unknown) => this.persist(entry as object);
		internals._rewriteFile = () => this.rewrite();
		// An opened file is on disk as it is.
		if (internals.persist && internals.sessionFile && internals.flushed) {
			for (const entry of internals.fileEntries) this.written.add(entry);
			this.goodSize = files.size(internals.sessionFile);
		}
	}

	/** Writes the whole file now if it holds content that was never written (a new branch of a session). */
	writeIfUnwritten(): void {
		const internals = this.internals;
		if (internals.persist && internals.sessionFile && !internals.flushed && this.holdsContent()) this.rewrite();
	}

	/**
	 * Appends entries through `append` (a SessionManager call) and returns its result once they are on disk and
	 * synced. When they could not be written they are taken back out of the session (as if never appended: no
	 * listener heard of them) and the RecordingError is thrown, so the caller's change is refused whole.
	 */
	appendOrRefuse<T>(append: () => T): T {
		const internals = this.internals;
		const before = internals.fileEntries.length;
		const leaf = internals.leafId;
		this.unannounced = [];
		let result: T;
		let added: object[];
		try {
			result = append();
		} finally {
			added = this.unannounced;
			this.unannounced = undefined;
		}
		// Setup entries alone are not written yet by design; anything else unwritten means its write failed.
		const unwritten =
			internals.persist && internals.sessionFile !== undefined && (internals.flushed || this.holdsContent()) && added.some((entry) => !this.isWritten(entry));
		let failure: RecordingError | undefined = unwritten ? (this.failure ?? new RecordingError("EIO", internals.sessionFile ?? "the session file", new Error("not written"))) : undefined;
		if (!failure && internals.persist && internals.sessionFile && added.length > 0) {
			try {
				this.files.syncNow(internals.sessionFile);
			} catch (error) {
				failure = new RecordingError((error as NodeJS.ErrnoException).code ?? "EIO", internals.sessionFile, error);
			}
		}
		if (failure) {
			// After a failed sync the entry may be in the file after all; taken back here, it is left on a side
			// branch there (the next entry hangs off the leaf before it), so the session never follows it.
			this.takeBack(before, leaf);
			throw failure;
		}
		for (const entry of added) this.announce(entry);
		return result!;
	}

	/** Whether the session file exists: written at least once (an opened file always is). */
	get onDisk(): boolean {
		return this.internals.persist && this.internals.flushed;
	}

	/**
	 * Whether another program changed the file since this recorder last wrote it (or since it was opened): its
	 * size is not the one Skiff left. A torn tail that Skiff's own failed append may have left does not count
	 * (the next write cuts it off). Appending now would refuse (see appendBacklog); the session must be reloaded.
	 */
	changedOnDisk(): boolean {
		const file = this.internals.sessionFile;
		if (!this.onDisk || !file || this.goodSize === undefined) return false;
		let size: number;
		try {
			size = this.files.size(file);
		} catch {
			return false; // gone: the next write reports it
		}
		if (size === this.goodSize) return false;
		return !(this.mayBeTorn && size > this.goodSize);
	}

	/** How many entries pi accepted that are not on disk (their write failed or was refused). */
	get unrecorded(): number {
		return this.backlog.length;
	}

	/** The current failure, if the last write did not succeed. */
	get lastFailure(): RecordingError | undefined {
		return this.failure;
	}

	/** Hears about failures and recoveries (for an event to every client following the session). */
	onChange(listener: RecordingListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** How many user messages pi has accepted so far (written or not). */
	userMessages(): number {
		return this.messages().filter((m) => m.role === "user").length;
	}

	/**
	 * Resolves once the user message after the first `before` ones is on disk and synced: the moment a prompt
	 * may be acknowledged. Rejects with a RecordingError when its write failed.
	 */
	async waitForUserMessage(before: number): Promise<void> {
		await this.waitFor(() => this.messageEntries().filter((e) => (e.message as StampedMessage).role === "user")[before]);
		await this.sync();
	}

	/**
	 * Resolves once `message` (a copy of a message about to be sent to the model: pi clones the context, so
	 * identity is role plus timestamp) is on disk; rejects when its write failed.
	 */
	waitUntilRecorded(message: StampedMessage): Promise<void> {
		return this.waitFor(() =>
			this.messageEntries().find((e) => {
				const m = e.message as StampedMessage;
				return m.role === message.role && m.timestamp === message.timestamp;
			}),
		);
	}

	private get internals(): SessionManagerInternals {
		return this.manager as unknown as SessionManagerInternals;
	}

	private messageEntries() {
		return this.internals.fileEntries.filter((e) => e.type === "message");
	}

	private messages(): StampedMessage[] {
		return this.messageEntries().map((e) => e.message as StampedMessage);
	}

	/** Whether the session holds anything worth a file: an entry besides the setup every session starts with. */
	private holdsContent(): boolean {
		// What the session is (session-origin.ts) is written with its first entries, not worth a file alone either.
		return this.internals.fileEntries.some((e) => !SETUP_ENTRY_TYPES.has(e.type) && !(e.type === "custom" && e.customType === ORIGIN_ENTRY_TYPE));
	}

	/** Removes the entries appended since the session held `length` entries, and puts the leaf back. */
	private takeBack(length: number, leaf: string | null): void {
		const internals = this.internals;
		const removed = new Set<object>(internals.fileEntries.splice(length));
		for (const entry of removed) if (typeof (entry as { id?: unknown }).id === "string") internals.byId.delete((entry as { id: string }).id);
		internals.leafId = leaf;
		this.backlog = this.backlog.filter((entry) => !removed.has(entry));
	}

	private isWritten(entry: object): boolean {
		return !this.internals.persist || this.written.has(entry);
	}

	/** Hears about every entry pi appends, recorded or not (an in-memory session's too), once it is handled. */
	onAppend(listener: (entry: object) => void): () => void {
		this.appendListeners.add(listener);
		return () => this.appendListeners.delete(listener);
	}

	private persist(entry: object): void {
		try {
			this.record(entry);
		} finally {
			if (this.unannounced) this.unannounced.push(entry);
			else this.announce(entry);
		}
	}

	private announce(entry: object): void {
		for (const listener of this.appendListeners) listener(entry);
	}

	private record(entry: object): void {
		const internals = this.internals;
		if (!internals.persist || !internals.sessionFile) return;
		if (!this.holdsContent()) {
			internals.flushed = false; // nothing of the user's yet: the file is written with the first such entry
		} else if (!internals.flushed) {
			this.rewrite();
		} else {
			this.backlog.push(entry);
			this.appendBacklog();
		}
		for (const check of [...this.checks]) check();
	}

	/** Writes every entry to a temporary file, then renames it over the session file. */
	private rewrite(): void {
		const internals = this.internals;
		if (!internals.persist || !internals.sessionFile) return;
		const file = internals.sessionFile;
		const content = `${internals.fileEntries.map((e) => JSON.stringify(e)).join("\n")}\n`;
		try {
			this.files.replace(file, content);
		} catch (error) {
			this.fail(file, error);
			return;
		}
		internals.flushed = true;
		this.backlog = [];
		for (const entry of internals.fileEntries) this.written.add(entry);
		this.goodSize = Buffer.byteLength(content);
		this.recover();
	}

	/** Appends the backlog in one write, after cutting off what a failed write may have left. */
	private appendBacklog(): void {
		const file = this.internals.sessionFile!;
		const text = `${this.backlog.map((e) => JSON.stringify(e)).join("\n")}\n`;
		try {
			const size = this.goodSize === undefined ? undefined : this.files.size(file);
			if (size !== undefined && size !== this.goodSize) {
				// Only what our own failed append left is cut off; anything else is another program's writing,
				// which is never destroyed (the session is not appended to until it is reloaded).
				if (!this.mayBeTorn || size < this.goodSize!) throw Object.assign(new Error("changed on disk"), { code: CHANGED_ON_DISK });
				this.files.truncate(file, this.goodSize!);
			}
			this.files.append(file, text);
		} catch (error) {
			this.mayBeTorn ||= (error as NodeJS.ErrnoException).code !== CHANGED_ON_DISK;
			this.fail(file, error);
			return;
		}
		this.mayBeTorn = false;
		if (this.goodSize !== undefined) this.goodSize += Buffer.byteLength(text);
		for (const entry of this.backlog) this.written.add(entry);
		this.backlog = [];
		this.recover();
	}

	/** Flushes the file to the disk (in the background of the event loop: the model call does not wait for it). */
	private async sync(): Promise<void> {
		const file = this.internals.sessionFile;
		if (!this.internals.persist || !file) return;
		await this.files.sync(file);
	}

	private fail(file: string, error: unknown): void {
		const systemCode = (error as NodeJS.ErrnoException).code ?? "EIO";
		const first = this.failure === undefined;
		this.failure = new RecordingError(systemCode, file, error);
		this.failures++;
		if (first) for (const listener of this.listeners) listener(this.failure);
	}

	private recover(): void {
		if (this.failure === undefined) return;
		this.failure = undefined;
		for (const listener of this.listeners) listener(undefined);
	}

	/**
	 * Resolves once the entry `find()` finds is written; re-checked after every entry; rejects on a write failure
	 * or after a bound. An entry handed over already while the recording is failing had its write tried and
	 * failed, and nothing retries it until another entry comes, so the wait fails at once (a prompt on a full disk
	 * is refused in a moment, not after the bound).
	 */
	private waitFor(find: () => object | undefined): Promise<void> {
		const failuresBefore = this.failures;
		const written = (entry: object | undefined) => entry !== undefined && this.isWritten(entry);
		if (!this.internals.persist || written(find())) return Promise.resolve();
		return new Promise((resolve, reject) => {
			const finish = (error?: Error) => {
				this.checks.delete(check);
				clearTimeout(timer);
				if (error) reject(error);
				else resolve();
			};
			const check = () => {
				const entry = find();
				if (written(entry)) finish();
				else if (this.failure && (this.failures > failuresBefore || entry !== undefined)) finish(this.failure);
			};
			const timer = setTimeout(
				() => finish(new CodedError("io_error", `The prompt was not handed to the session recorder within ${RECORD_WAIT_LIMIT_MS / 1000} s`)),
				RECORD_WAIT_LIMIT_MS,
			);
			this.checks.add(check);
			check();
		});
	}
}

function describeWriteError(code: string, cause: unknown): string {
	switch (code) {
		case "ENOSPC":
			return "no space left on the device (ENOSPC). Free some space; the next write retries what was not recorded.";
		case "EDQUOT":
			return "the disk quota is exhausted (EDQUOT). Free some space; the next write retries what was not recorded.";
		case CHANGED_ON_DISK:
			return "another program changed the file since Skiff last wrote it; Skiff does not append to it, so nothing of theirs is overwritten. Reload the session to continue.";
		case "EROFS":
			return "the file system is read-only (EROFS). Make it writable; the next write retries what was not recorded.";
		case "EACCES":
		case "EPERM":
			return `permission denied (${code}). Fix the permissions of the sessions folder; the next write retries what was not recorded.`;
		default:
			return `${cause instanceof Error ? cause.message : String(cause)} (${code})`;
	}
}

/** Writes all of `text`, looping over short writes (a write that stops early on a full disk throws next time). */
function writeAll(fd: number, text: string): void {
	const bytes = Buffer.from(text, "utf8");
	let offset = 0;
	while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
}
