/**
 * The runtime manager: every loaded session by id, the primary session, lifecycle (open, create, fork,
 * clone, close) and a bound on loaded sessions that unloads idle ones instead of refusing new ones.
 * It knows nothing of transports or of the wire: sessions' events leave through its observers.
 */
import { CodedError } from "../shared/errors.js";
import { directoryProblem } from "../shared/directory-check.js";
import { resolve } from "node:path";
import {
	type AgentHandle,
	type AgentProfile,
	DamagedSessionFileError,
	type SessionCatalog,
	type SessionContribution,
	type SessionObserver,
	type SessionOpener,
	type SessionOrigin,
	type SessionRecordedAs,
	type SessionSearchResult,
	type SessionSignal,
	type SessionSource,
	type SessionState,
	type SessionSummary,
	type StaleSessionFile,
	type ThinkingLevel,
	type TrashedSession,
	type UnloadReason,
	USER_SESSION_KINDS,
} from "./types.js";

/** Default bound on sessions held in memory at once (the primary counts). */
export const DEFAULT_MAX_LOADED_SESSIONS = 8;

const DAY_MS = 24 * 60 * 60 * 1000;

/** What `prune` found, and removed unless it was a dry run. */
export interface PruneReport {
	/** Files last modified before this moment (epoch ms) qualified. */
	cutoffMs: number;
	/** The files removed, or with a dry run those that would be. */
	files: StaleSessionFile[];
	/** Files that qualified but could not be removed, with the reason. */
	failed: Array<{ file: StaleSessionFile; error: string }>;
}

/** How the primary session is chosen at start-up (from --continue, --resume, --session, --session-id, --no-session). */
export type StartupSession =
	| { kind: "new" }
	| { kind: "continue" }
	| { kind: "open"; reference: string }
	| { kind: "id"; id: string }
	| { kind: "memory" };

export interface RuntimeManagerOptions {
	cwd: string;
	catalog: SessionCatalog;
	openSession: SessionOpener;
	/** Features (memory, ...) for a session about to open; `attach` learns its id once it is open. */
	sessionFeatures?: (origin: SessionOrigin) => SessionContribution;
	maxLoadedSessions?: number;
	thinkingLevel?: ThinkingLevel;
}

/** Where a session sits among others: its parent session, its persona. */
interface SessionOriginRecord {
	parentSessionId?: string;
	personaRoot?: string;
	/** The agent it is (a job's, a persona's): kept so the session is the same agent when loaded again. */
	profile?: AgentProfile;
	/** What a feature records the session as (a job's child, a workflow's agent); kept to record it again if re-created. */
	recordAs?: SessionRecordedAs;
}

/** A session held in memory. */
export interface LoadedSession {
	readonly id: string;
	/** The agent session; replaced (same id) when the session is reloaded because its file changed on disk. */
	handle: AgentHandle;
	lastUsed: number;
}

export class RuntimeManager {
	private readonly loaded = new Map<string, LoadedSession>();
	private readonly unsubscribers = new Map<string, () => void>();
	private readonly observers = new Set<SessionObserver>();
	/**
	 * How to load again each session that was unloaded: its file (even one outside the sessions folder, opened
	 * from the command line), or, for a session with nothing recorded yet, how to create it again with the
	 * same id. An id that once worked keeps working.
	 */
	private readonly unloaded = new Map<string, { source: SessionSource; origin: SessionOriginRecord }>();
	/** How each loaded session was created, for `unloaded`. */
	private readonly origins = new Map<string, SessionOriginRecord>();
	private primaryId: string | undefined;
	/** Serializes opens so two requests for one file never create two recorders for it. */
	private openQueue: Promise<unknown> = Promise.resolve();
	private closed = false;
	readonly maxLoadedSessions: number;

	constructor(private readonly options: RuntimeManagerOptions) {
		this.maxLoadedSessions = Math.max(1, options.maxLoadedSessions ?? DEFAULT_MAX_LOADED_SESSIONS);
	}

	get cwd(): string {
		return this.options.cwd;
	}

	/** Shutdown has begun: runs are being stopped for good (features tell this apart from an abort). */
	get shuttingDown(): boolean {
		return this.closed;
	}

	get primary(): LoadedSession | undefined {
		return this.primaryId === undefined ? undefined : this.loaded.get(this.primaryId);
	}

	/** Loads the primary session as chosen on the command line. */
	async start(choice: StartupSession): Promise<LoadedSession> {
		const { catalog, cwd } = this.options;
		if (choice.kind === "continue") {
			// A damaged newest file is set aside by the opener (and reported); the next newest is tried.
			for (let newest = await catalog.findNewest(cwd); newest; newest = await catalog.findNewest(cwd)) {
				try {
					return this.becomePrimary(await this.load({ kind: "file", path: newest.path }));
				} catch (error) {
					if (!(error instanceof DamagedSessionFileError)) throw error;
				}
			}
			return this.becomePrimary(await this.load({ kind: "new", cwd }));
		}
		let source: SessionSource;
		switch (choice.kind) {
			case "new":
				source = { kind: "new", cwd };
				break;
			case "memory":
				source = { kind: "memory", cwd };
				break;
			case "open":
				source = { kind: "file", path: (await catalog.findReference(choice.reference, cwd, { anywhere: true })).path };
				break;
			case "id": {
				const existing = await catalog.findById(choice.id);
				source = existing ? { kind: "file", path: existing.path } : { kind: "new", cwd, id: choice.id };
				break;
			}
		}
		return this.becomePrimary(await this.load(source));
	}

	private becomePrimary(session: LoadedSession): LoadedSession {
		this.primaryId = session.id;
		return session;
	}

	/**
	 * The session a command addresses: `sessionId` when given (reloading it from disk if it was unloaded),
	 * else the primary. Unknown ids fail; they are never routed to another session.
	 */
	async get(sessionId?: string): Promise<LoadedSession> {
		if (sessionId === undefined) {
			const primary = this.primary;
			if (!primary) throw new CodedError("unavailable", "No primary session is loaded; name a session with sessionId");
			return this.fresh(primary);
		}
		const session = this.loaded.get(sessionId);
		if (session) return this.fresh(session);
		const unloaded = this.unloaded.get(sessionId);
		if (unloaded) return this.load(unloaded.source, unloaded.origin);
		const recorded = await this.options.catalog.findById(sessionId);
		if (!recorded) throw new CodedError("unknown_session", `Unknown session: ${sessionId}`);
		return this.load({ kind: "file", path: recorded.path });
	}

	/** The loaded session with this id, without reloading or touching it. */
	peek(sessionId: string): LoadedSession | undefined {
		return this.loaded.get(sessionId);
	}

	/** Receives every session's events and unloads from now on, in order per session. */
	observe(observer: SessionObserver): () => void {
		this.observers.add(observer);
		return () => this.observers.delete(observer);
	}

	/**
	 * Opens a recorded session by id, id prefix or path; an already loaded one is returned as is. A path must lie
	 * in the sessions folder unless `anywhere` (a client as trusted as the command line).
	 */
	async open(reference: string, options: { anywhere?: boolean } = {}): Promise<LoadedSession> {
		// A loaded session named by its id is returned even before it has a file (nothing said in it yet).
		const byId = this.loaded.get(reference.trim());
		if (byId) return this.fresh(byId);
		const ref = await this.options.catalog.findReference(reference, this.options.cwd, options);
		const loaded = this.loaded.get(ref.id);
		if (loaded) return this.fresh(loaded);
		return this.load({ kind: "file", path: ref.path });
	}

	/**
	 * Creates a new session in `cwd` (default: the parent's, else the service's; a relative path is taken from
	 * the service's). A child (`parentSessionId`) records its parent and starts from its live feature
	 * configuration; a persona session keeps its memory under `personaRoot`; a `profile` makes it a particular
	 * agent (a job's); `recordAs` records what a feature made it for (its kind, listed and kept across restarts).
	 */
	async create(
		options: { cwd?: string; parentSession?: string; parentSessionId?: string; personaRoot?: string; profile?: AgentProfile; recordAs?: SessionRecordedAs } = {},
	): Promise<LoadedSession> {
		const parent = options.parentSessionId === undefined ? undefined : await this.get(options.parentSessionId);
		const cwd = options.cwd === undefined ? (parent?.handle.cwd ?? this.options.cwd) : resolve(this.options.cwd, options.cwd);
		for (const [name, dir] of [["cwd", options.cwd === undefined ? undefined : cwd], ["personaRoot", options.personaRoot]] as const) {
			const problem = dir === undefined ? undefined : await directoryProblem(dir);
			if (problem) throw new CodedError("invalid_command", `${name} ${dir} ${problem}: it must be an existing, readable directory`);
		}
		return this.load(
			{ kind: "new", cwd, parentSession: options.parentSession ?? parent?.handle.sessionFile },
			{ parentSessionId: parent?.id, personaRoot: options.personaRoot, profile: options.profile, recordAs: options.recordAs },
		);
	}

	/**
	 * Forks a session before one of its user messages: the new session holds the conversation up to that
	 * message, and the message's text is returned so a client can edit and resend it.
	 */
	async fork(sessionId: string | undefined, entryId: string): Promise<{ session: LoadedSession; text: string }> {
		const source = await this.get(sessionId);
		const file = this.recordedFile(source, "fork");
		const point = source.handle.forkPoints().find((p) => p.entryId === entryId);
		if (!point) throw new CodedError("not_found", `Entry ${entryId} is not a user message of session ${source.id}; see get_fork_messages`);
		const leafId = source.handle.parentEntryId(entryId);
		const session = await this.load({ kind: "branch", path: file, leafId }, { parentSessionId: source.id });
		return { session, text: point.text };
	}

	/** Copies a session's current conversation into a new session. */
	async clone(sessionId?: string): Promise<LoadedSession> {
		const source = await this.get(sessionId);
		const file = this.recordedFile(source, "clone");
		const leaf = source.handle.leafEntryId();
		if (!leaf || source.handle.state().messageCount === 0) throw new CodedError("conflict", `Session ${source.id} has nothing to clone yet`);
		return this.load({ kind: "branch", path: file, leafId: leaf }, { parentSessionId: source.id });
	}

	/**
	 * Lists (`dryRun`) or deletes recorded session files not modified for `olderThanDays` days: only files the
	 * catalog finds in the sessions folder's own layout (never a symbolic link), never a loaded session's.
	 * Runs between session opens, so no file is removed while it is being opened.
	 */
	prune(olderThanDays: number, dryRun: boolean): Promise<PruneReport> {
		if (!(olderThanDays > 0) || !Number.isFinite(olderThanDays)) {
			throw new CodedError("invalid_command", `Invalid command: \`olderThanDays\` must be a number of days greater than 0 (got ${olderThanDays})`);
		}
		const next = this.openQueue.then(() => this.pruneNow(Date.now() - olderThanDays * DAY_MS, dryRun));
		this.openQueue = next.catch(() => undefined);
		return next;
	}

	private async pruneNow(cutoffMs: number, dryRun: boolean): Promise<PruneReport> {
		const stale = await this.options.catalog.staleFiles(cutoffMs);
		const loadedFiles = new Set([...this.loaded.values()].map((s) => s.handle.sessionFile));
		const candidates = stale.filter((f) => !this.loaded.has(f.id) && !loadedFiles.has(f.path));
		if (dryRun) return { cutoffMs, files: candidates, failed: [] };
		const report: PruneReport = { cutoffMs, files: [], failed: [] };
		for (const file of candidates) {
			try {
				await this.options.catalog.removeStale(file, cutoffMs);
				this.unloaded.delete(file.id);
				report.files.push(file);
			} catch (error) {
				report.failed.push({ file, error: error instanceof Error ? error.message : String(error) });
			}
		}
		return report;
	}

	/** Unloads an idle session; its recording stays on disk and it can be opened again. */
	/** Returns whether it was loaded: a known session that is not loaded is already closed (nothing to unload). */
	async close(sessionId: string): Promise<boolean> {
		const session = this.loaded.get(sessionId);
		if (!session) {
			if (this.unloaded.has(sessionId) || (await this.options.catalog.findById(sessionId))) return false;
			throw new CodedError("unknown_session", `Unknown session: ${sessionId}`);
		}
		if (sessionId === this.primaryId) throw new CodedError("conflict", "The primary session cannot be closed");
		if (occupied(session)) throw new CodedError("busy", `Session ${sessionId} is busy: abort its run (or its shell command) first`);
		this.unload(session, "closed");
		return true;
	}

	/** Full state of a loaded session. */
	state(session: LoadedSession): SessionState {
		return { ...session.handle.state(), primary: session.id === this.primaryId };
	}

	/**
	 * Recorded sessions of this project (or all projects), marking which are loaded, and loaded sessions not yet
	 * on disk. Sessions a feature made for its own work (jobs, workflows) are left out unless `internal`.
	 */
	async list(scope: "project" | "all", options: { internal?: boolean } = {}): Promise<SessionSummary[]> {
		const rows = await this.options.catalog.list(scope, this.options.cwd);
		const summaries: SessionSummary[] = rows.map((row) => ({
			...row,
			loaded: this.loaded.has(row.sessionId),
			primary: row.sessionId === this.primaryId,
			recorded: true,
		}));
		// Loaded sessions not yet on disk (nothing said yet, or --no-session) are listed too, once: a file the
		// listing read under the same id, or the same file, is that session.
		const listed = new Set(summaries.flatMap((s) => [s.sessionId, s.path]));
		for (const session of this.loaded.values()) {
			if (listed.has(session.id) || (session.handle.sessionFile !== undefined && listed.has(session.handle.sessionFile))) continue;
			if (scope === "project" && session.handle.cwd !== this.options.cwd) continue;
			summaries.unshift(this.unrecordedSummary(session));
		}
		return options.internal ? summaries : summaries.filter((s) => USER_SESSION_KINDS.includes(s.kind));
	}

	/** A loaded session's row before anything of it is on disk. */
	private unrecordedSummary(session: LoadedSession): SessionSummary {
		const state = session.handle.state();
		const origin = this.origins.get(session.id) ?? {};
		const kind = origin.recordAs?.kind ?? (origin.parentSessionId !== undefined || state.parentSession !== undefined ? "fork" : "user");
		return {
			sessionId: session.id,
			path: session.handle.sessionFile ?? "",
			cwd: session.handle.cwd,
			name: state.sessionName,
			created: new Date(session.lastUsed).toISOString(),
			modified: new Date(session.lastUsed).toISOString(),
			messageCount: session.handle.messages().filter((m) => m.role === "user" || m.role === "assistant").length,
			firstMessage: "",
			parentSession: state.parentSession,
			kind,
			...(origin.parentSessionId !== undefined ? { parentSessionId: origin.parentSessionId } : {}),
			...(origin.recordAs?.ownerId !== undefined ? { ownerId: origin.recordAs.ownerId } : {}),
			loaded: true,
			primary: session.id === this.primaryId,
			recorded: state.persisted,
		};
	}

	/** Sessions whose title or message text holds `query` (see SessionCatalog.search); internal ones only if `internal`. */
	async search(query: string, scope: "project" | "all", limit: number, options: { internal?: boolean } = {}): Promise<SessionSearchResult> {
		return this.options.catalog.search(query, scope, this.options.cwd, limit, options);
	}

	/**
	 * Moves a recorded session's file to the trash (never deletes it), unloading the session first. Refuses the
	 * primary session, a busy one, and one with nothing recorded. Runs between session opens, so the file is
	 * never moved while it is being opened. Tells every loaded session's followers (`session_list_changed`).
	 */
	delete(sessionId: string): Promise<TrashedSession> {
		const next = this.openQueue.then(() => this.deleteNow(sessionId));
		this.openQueue = next.catch(() => undefined);
		return next;
	}

	private async deleteNow(sessionId: string): Promise<TrashedSession> {
		if (sessionId === this.primaryId) throw new CodedError("conflict", "The primary session cannot be deleted: start the service on another session first");
		const session = this.loaded.get(sessionId);
		if (session && occupied(session)) throw new CodedError("busy", `Session ${sessionId} is busy: abort its run (or its shell command) first`);
		const recorded = await this.options.catalog.findById(sessionId);
		if (!recorded) {
			if (session || this.unloaded.has(sessionId)) throw new CodedError("conflict", `Session ${sessionId} has nothing recorded yet: there is nothing to delete (close it instead)`);
			throw new CodedError("unknown_session", `Unknown session: ${sessionId}`);
		}
		if (session) this.unload(session, "deleted");
		this.unloaded.delete(sessionId);
		const trashed = await this.options.catalog.trash(recorded);
		this.announceListChange({ change: "deleted", changedSessionId: sessionId });
		return trashed;
	}

	/** The trash's sessions, newest first. */
	trashList(): Promise<TrashedSession[]> {
		return this.options.catalog.trashList();
	}

	/** Puts a trashed session back where it was (refused when a file is there now). */
	restore(trashId: string): Promise<TrashedSession> {
		const next = this.openQueue.then(async () => {
			const restored = await this.options.catalog.restore(trashId);
			this.announceListChange({ change: "restored", changedSessionId: restored.sessionId });
			return restored;
		});
		this.openQueue = next.catch(() => undefined);
		return next;
	}

	/**
	 * The session list changed other than by a session's own activity: every loaded session's followers hear it
	 * (events are stamped with the session they travel in, so the session concerned is `changedSessionId`).
	 */
	private announceListChange(change: { change: "deleted" | "restored"; changedSessionId: string }): void {
		for (const session of this.loaded.values()) this.signal(session.id, { kind: "event", event: { type: "session_list_changed", ...change } });
	}

	/** Loaded sessions, most recently used first. */
	loadedSessions(): LoadedSession[] {
		return [...this.loaded.values()].sort((a, b) => b.lastUsed - a.lastUsed);
	}

	/** Stops every run and shell command and waits until what they produced is recorded; sessions stay loaded. */
	async interrupt(): Promise<void> {
		await Promise.allSettled([...this.loaded.values()].map((s) => s.handle.settle()));
	}

	/** Stops every run, waits until everything is recorded, and unloads all sessions. */
	async shutdown(): Promise<void> {
		this.closed = true;
		const sessions = [...this.loaded.values()];
		await Promise.allSettled(sessions.map((s) => s.handle.settle()));
		for (const session of sessions) this.unload(session, "shutdown");
	}

	private load(source: SessionSource, origin: SessionOriginRecord = {}): Promise<LoadedSession> {
		const next = this.openQueue.then(() => this.loadNow(source, origin));
		this.openQueue = next.catch(() => undefined);
		return next;
	}

	private async loadNow(source: SessionSource, origin: SessionOriginRecord): Promise<LoadedSession> {
		if (this.closed) throw new CodedError("unavailable", "The service is shutting down");
		if (source.kind === "file") {
			const existing = [...this.loaded.values()].find((s) => s.handle.sessionFile === source.path);
			if (existing) return this.touch(existing);
		}
		this.makeRoom();
		const { handle, features } = await this.openWithFeatures(source, origin);
		const duplicate = this.loaded.get(handle.sessionId);
		if (duplicate) {
			handle.dispose();
			if (duplicate.handle.sessionFile !== handle.sessionFile) {
				throw new CodedError("conflict", `Session id ${handle.sessionId} is already loaded from another file`);
			}
			return this.touch(duplicate);
		}
		features?.attach?.(handle.sessionId);
		const session: LoadedSession = { id: handle.sessionId, handle, lastUsed: Date.now() };
		this.loaded.set(session.id, session);
		this.unloaded.delete(session.id);
		this.origins.set(session.id, origin);
		this.unsubscribers.set(session.id, handle.subscribe((event) => this.signal(session.id, { kind: "event", event })));
		return session;
	}

	/** Opens a session with the features it gets (which learn its cwd and id once it is open). */
	private async openWithFeatures(source: SessionSource, origin: SessionOriginRecord) {
		let opened: AgentHandle | undefined;
		const contribution = this.options.sessionFeatures?.({
			cwd: () => opened?.cwd ?? this.options.cwd,
			sessionId: () => opened?.sessionId ?? "",
			...origin,
		});
		const thinkingLevel = origin.profile?.thinkingLevel ?? this.options.thinkingLevel;
		const recordAs = source.kind === "new" && origin.recordAs ? { ...origin.recordAs, parentSessionId: origin.parentSessionId } : undefined;
		const handle = await this.options.openSession(source, { thinkingLevel, features: contribution?.features, profile: origin.profile, ...(recordAs ? { recordAs } : {}) });
		opened = handle;
		return { handle, features: contribution };
	}

	/**
	 * The session, reloaded from disk first when another program (pi, another Skiff) changed its file since it
	 * was last written or read: appending to it as it is in memory would branch away from the other program's
	 * entries or refuse to record. A busy session is reloaded once it is idle (its writes meanwhile are refused
	 * and reported by `recording_failed`).
	 */
	private fresh(session: LoadedSession): Promise<LoadedSession> {
		this.touch(session);
		if (!this.needsReload(session)) return Promise.resolve(session);
		const next = this.openQueue.then(() => this.reloadNow(session));
		this.openQueue = next.catch(() => undefined);
		return next;
	}

	private needsReload(session: LoadedSession): boolean {
		return this.loaded.get(session.id) === session && !occupied(session) && session.handle.changedOnDisk();
	}

	/**
	 * Re-opens a session from its file under the same id and tells every client (`session_reloaded`), so they
	 * reload too. Entries the session held but could not record (refused because the file had changed) are
	 * dropped: the file is the truth both programs share; their count is reported.
	 */
	private async reloadNow(session: LoadedSession): Promise<LoadedSession> {
		if (!this.needsReload(session)) return session; // another command reloaded it meanwhile
		const path = session.handle.sessionFile!;
		const discarded = session.handle.unrecordedEntries();
		const { handle, features } = await this.openWithFeatures({ kind: "file", path }, this.origins.get(session.id) ?? {});
		if (handle.sessionId !== session.id) {
			handle.dispose();
			throw new CodedError("conflict", `The file of session ${session.id} (${path}) now holds another session (${handle.sessionId})`);
		}
		features?.attach?.(session.id);
		this.unsubscribers.get(session.id)?.();
		const previous = session.handle;
		session.handle = handle;
		previous.dispose();
		this.unsubscribers.set(session.id, handle.subscribe((event) => this.signal(session.id, { kind: "event", event })));
		this.signal(session.id, { kind: "event", event: { type: "session_reloaded", reason: "changed_on_disk", discarded } });
		return session;
	}

	/**
	 * Unloads least recently used idle sessions until one more fits; never a busy one, never the primary, never
	 * one whose recording is failing (its unwritten entries would be lost).
	 */
	private makeRoom(): void {
		while (this.loaded.size >= this.maxLoadedSessions) {
			const victim = [...this.loaded.values()]
				.filter((s) => s.id !== this.primaryId && !occupied(s) && s.handle.state().recordingError === undefined)
				.sort((a, b) => a.lastUsed - b.lastUsed)[0];
			if (!victim) {
				throw new CodedError(
					"limit",
					`All ${this.loaded.size} loaded sessions are busy (limit ${this.maxLoadedSessions}; see --max-sessions): ` +
						"wait for a run to finish or close a session",
				);
			}
			this.unload(victim, "evicted");
		}
	}

	private unload(session: LoadedSession, reason: UnloadReason): void {
		this.unsubscribers.get(session.id)?.();
		this.unsubscribers.delete(session.id);
		this.loaded.delete(session.id);
		const origin = this.origins.get(session.id) ?? {};
		this.origins.delete(session.id);
		const { handle } = session;
		const state = handle.state();
		if (handle.sessionFile !== undefined && state.persisted) {
			this.unloaded.set(session.id, { source: { kind: "file", path: handle.sessionFile }, origin });
		} else if (handle.sessionFile !== undefined) {
			// Nothing recorded yet: the same (empty) session is created again, under the same id, when asked for.
			const parentSession = state.parentSession;
			this.unloaded.set(session.id, { source: { kind: "new", cwd: handle.cwd, id: session.id, parentSession }, origin });
		}
		this.signal(session.id, { kind: "unloaded", reason });
		session.handle.dispose();
	}

	private signal(sessionId: string, signal: SessionSignal): void {
		for (const observer of this.observers) observer(sessionId, signal);
	}

	private touch(session: LoadedSession): LoadedSession {
		session.lastUsed = Date.now();
		return session;
	}

	private recordedFile(session: LoadedSession, action: string): string {
		const file = session.handle.sessionFile;
		if (!file) throw new CodedError("conflict", `Cannot ${action} session ${session.id}: it is not recorded (--no-session)`);
		return file;
	}
}

/** A session that must stay loaded: a run, a compaction or a shell command of the user is in progress. */
function occupied(session: LoadedSession): boolean {
	return session.handle.isBusy || session.handle.isBashRunning;
}

