/**
 * The changes feature's service: each session's base (session.ts), the listing, diff and revert of its working
 * directory against it (in git: git-changes.ts and git-revert.ts; outside: recorded-changes.ts), and `changes_updated`, sent a
 * moment after the last tool call or shell command that may have written files.
 */
import { lstat, stat } from "node:fs/promises";
import type { RuntimeEvent, SessionContribution, SessionObserver, SessionOrigin } from "../../agent/types.js";
import { writeFileAtomicallyAsync } from "../../shared/atomic-write.js";
import { CodedError } from "../../shared/errors.js";
import { git, repositoryRoot } from "../git.js";
import { SessionStates } from "../session-features.js";
import { changesUpdatedEvent } from "./events.js";
import { type GitView, gitFileDiff, gitView, listGitChanges, type SpecialFile } from "./git-changes.js";
import { revertGitFile } from "./git-revert.js";
import { checkRelativePath, confinedPath } from "./paths.js";
import { type BeforeRecord, type CurrentText, listRecordedChanges, recordedDiff } from "./recorded-changes.js";
import type { ChangedFile, ChangesList, FileDiff, RevertedFile, Since } from "./schemas.js";
import { ChangesSession } from "./session.js";
import { Trash } from "./trash.js";

/** How long after the last file-writing tool call `changes_updated` is sent (a burst of calls makes one event). */
export const CHANGES_UPDATED_DEBOUNCE_MS = 300;
/** A burst that goes on (an agent calling tools back to back) still announces at least this often. */
export const CHANGES_UPDATED_MAX_WAIT_MS = 2_000;
/** Tools that only read: their calls announce nothing. */
const READ_ONLY_TOOLS = new Set(["read", "grep", "find", "ls"]);

type RecordedFile = ChangedFile & { before: BeforeRecord; now: CurrentText };

/** A listing with what diff and revert need beside what changes_get answers. */
type Listing =
	| { mode: "git"; list: ChangesList; view: GitView; special: ReadonlyMap<string, SpecialFile> }
	| { mode: "recorded"; list: ChangesList; recorded: Map<string, RecordedFile> };

export interface ChangesServiceOptions {
	agentDir: string;
	observe(observer: SessionObserver): () => void;
	publish(sessionId: string, event: RuntimeEvent): void;
}

export class ChangesService {
	private readonly sessions = new SessionStates<ChangesSession>("changes record");
	private readonly timers = new Map<string, NodeJS.Timeout>();
	/** When the burst now waiting to be announced began, per session. */
	private readonly pendingSince = new Map<string, number>();
	/** One revert at a time per session (a second waits for the first). */
	private readonly reverting = new Map<string, Promise<unknown>>();
	private readonly stopObserving: () => void;
	private gitInstalled: Promise<boolean> | undefined;

	constructor(private readonly options: ChangesServiceOptions) {
		this.stopObserving = options.observe((sessionId, signal) => {
			if (signal.kind === "unloaded") return this.cancel(sessionId);
			const event = signal.event;
			if (event.type === "bash_execution_end" || (event.type === "tool_execution_end" && !READ_ONLY_TOOLS.has(String(event.toolName)))) this.announce(sessionId);
		});
	}

	/** A new session's state (its working directory is known once it is open), found again by the session's id. */
	contribution(origin: SessionOrigin): SessionContribution {
		const state = new ChangesSession(origin.cwd);
		return { features: state, attach: (sessionId) => this.sessions.attach(sessionId, state, state.link) };
	}

	/** The state of a loaded session; throws `unavailable` when it has none. */
	of(sessionId: string): ChangesSession {
		return this.sessions.get(sessionId);
	}

	stop(): void {
		this.stopObserving();
		for (const timer of this.timers.values()) clearTimeout(timer);
		this.timers.clear();
		this.pendingSince.clear();
	}

	/** Sends `changes_updated` once the calls of a burst are over, or CHANGES_UPDATED_MAX_WAIT_MS into a long one. */
	announce(sessionId: string): void {
		const now = Date.now();
		const since = this.pendingSince.get(sessionId) ?? now;
		this.pendingSince.set(sessionId, since);
		clearTimeout(this.timers.get(sessionId));
		const timer = setTimeout(
			() => {
				this.timers.delete(sessionId);
				this.pendingSince.delete(sessionId);
				this.options.publish(sessionId, { type: changesUpdatedEvent.type });
			},
			Math.max(0, Math.min(CHANGES_UPDATED_DEBOUNCE_MS, since + CHANGES_UPDATED_MAX_WAIT_MS - now)),
		);
		timer.unref();
		this.timers.set(sessionId, timer);
	}

	private cancel(sessionId: string): void {
		clearTimeout(this.timers.get(sessionId));
		this.timers.delete(sessionId);
		this.pendingSince.delete(sessionId);
	}

	/** Whether git runs here at all (asked once: it does not come and go while the service runs). */
	private hasGit(): Promise<boolean> {
		this.gitInstalled ??= git(this.options.agentDir, ["--version"]).then(
			() => true,
			(error) => (error as { timedOut?: boolean }).timedOut === true,
		);
		return this.gitInstalled;
	}

	async list(sessionId: string, cwd: string, since: Since): Promise<ChangesList> {
		return (await this.listing(sessionId, cwd, since)).list;
	}

	/** The listing, or with `only` the part of it about those paths (normalized). */
	private async listing(sessionId: string, cwd: string, since: Since, only?: ReadonlySet<string>): Promise<Listing> {
		const state = this.of(sessionId);
		try {
			if (!(await stat(cwd)).isDirectory()) throw new Error("not a folder");
		} catch {
			throw new CodedError("io_error", `The session's working directory ${cwd} is not there any more`);
		}
		const notes: string[] = [];
		if (state.unrecorded) notes.push("Part of this session's base could not be written to its file: it is lost when the session unloads.");
		const installed = await this.hasGit();
		const root = installed ? await repositoryRoot(cwd) : undefined;
		if (root !== undefined) {
			const start = state.sessionStart();
			if (since === "session_start" && !start) throw new CodedError("invalid_command", "The session has no recorded start yet: it is recorded at its first prompt");
			const view = await gitView(cwd, root, since, start);
			const { files, total, special } = await listGitChanges(cwd, view, start, since, only);
			if (view.operation) notes.push(`A ${view.operation} is in progress: conflicted files are marked.`);
			if (since === "session_start" && start?.untrackedTruncated) notes.push("The session started with more untracked files than were remembered: some of them may be listed as new.");
			return {
				mode: "git",
				view,
				special,
				list: { cwd, base: gitBase(view, since, start?.at), repository: repositoryState(view), files, total, truncated: total > files.length, notes },
			};
		}
		notes.push(
			installed
				? "Not a git repository: the base is what this session's edit and write calls found; changes made otherwise (bash) are not seen."
				: "git is not installed: the base is what this session's edit and write calls found; changes made otherwise (bash) are not seen.",
		);
		const { files, total } = await listRecordedChanges(cwd, state.recorded(), only);
		return {
			mode: "recorded",
			recorded: new Map(files.map((file) => [file.path, file])),
			list: {
				cwd,
				base: { kind: "recorded", description: "What this session's edit and write tool calls found in each file before changing it" },
				files: files.map(({ before: _before, now: _now, ...file }) => file),
				total,
				truncated: total > files.length,
				notes,
			},
		};
	}

	async diff(sessionId: string, cwd: string, path: string, since: Since): Promise<FileDiff> {
		const rel = checkRelativePath(path);
		const listing = await this.listing(sessionId, cwd, since, new Set([rel]));
		const file = listing.list.files.find((candidate) => candidate.path === rel);
		if (!file) throw new CodedError("not_found", `${JSON.stringify(rel)} ${await notAmongThem(cwd, rel, listing.list.base.description)}`);
		const base = listing.list.base;
		if (listing.mode === "git") {
			const { diff, binary, truncated, note } = await gitFileDiff(cwd, listing.view.baseRef, file, listing.special.get(rel));
			const notes = [...new Set([file.note, note].filter(Boolean))].join("; ");
			return { path: rel, base, status: file.status, diff, binary: binary || file.binary, truncated, ...(notes ? { note: notes } : {}) };
		}
		const recorded = listing.recorded.get(rel)!;
		const { diff, note } = recordedDiff(rel, recorded.before, recorded.now);
		return { path: rel, base, status: file.status, diff, binary: file.binary, truncated: false, ...(note ? { note } : {}) };
	}

	async revert(sessionId: string, cwd: string, paths: string[], tokens: Record<string, string>, since: Since): Promise<RevertedFile[]> {
		const before = this.reverting.get(sessionId) ?? Promise.resolve();
		const run = before.catch(() => undefined).then(() => this.revertNow(sessionId, cwd, paths, tokens, since));
		this.reverting.set(sessionId, run);
		try {
			return await run;
		} finally {
			if (this.reverting.get(sessionId) === run) this.reverting.delete(sessionId);
			this.announce(sessionId);
		}
	}

	private async revertNow(sessionId: string, cwd: string, paths: string[], tokens: Record<string, string>, since: Since): Promise<RevertedFile[]> {
		const wanted = new Set<string>();
		for (const path of paths) {
			try {
				wanted.add(checkRelativePath(path));
			} catch {
				// refused below, with the reason
			}
		}
		const listing = await this.listing(sessionId, cwd, since, wanted);
		const byPath = new Map(listing.list.files.map((file) => [file.path, file]));
		const trash = new Trash(this.options.agentDir);
		const results: RevertedFile[] = [];
		/** Each file once: the paths already taken, normalized, with the spelling that named them first. */
		const named = new Map<string, string>();
		for (const path of paths) {
			const refuse = (reason: string) => results.push({ path, outcome: "refused", reason });
			let rel: string;
			try {
				rel = checkRelativePath(path);
			} catch (error) {
				refuse((error as Error).message);
				continue;
			}
			const first = named.get(rel);
			if (first !== undefined) {
				refuse(`named twice in this revert (first as ${JSON.stringify(first)}): it is reverted once, there`);
				continue;
			}
			named.set(rel, path);
			const file = byPath.get(rel);
			if (!file) {
				refuse(`${await notAmongThem(cwd, rel, listing.list.base.description)}: nothing to revert`);
				continue;
			}
			const seen = tokens[path] ?? tokens[rel];
			if (seen === undefined) {
				refuse("no token: pass the token changes_get answered for it, so that a file changed since is not reverted blind");
				continue;
			}
			if (seen !== file.token) {
				refuse("changed since you looked: list the changes again (changes_get) and review it before reverting");
				continue;
			}
			if (listing.mode === "git" && since === "session_start" && file.status === "untracked" && this.of(sessionId).sessionStart()?.untracked.has(rel)) {
				refuse("it was untracked already when the session started and its content then was not kept: it cannot be put back, so it is left as it is");
				continue;
			}
			try {
				const absolute = await confinedPath(cwd, rel);
				if (file.oldPath !== undefined) await confinedPath(cwd, file.oldPath);
				if (listing.mode === "git") {
					results.push({ path, ...(await revertGitFile(cwd, listing.view.baseRef, file, absolute, trash, listing.special.get(rel))) });
				} else {
					results.push({ path, ...(await revertRecorded(listing.recorded.get(rel)!, absolute, rel, trash)) });
				}
			} catch (error) {
				refuse(error instanceof CodedError ? error.message : `could not be reverted: ${(error as Error).message}`);
			}
		}
		return results;
	}
}

/**
 * Why a path is not among the changes, in words: a folder (changes are listed, diffed and reverted file by
 * file, so a folder of new files is not one change) is said to be one, inside the working directory only.
 */
async function notAmongThem(cwd: string, rel: string, base: string): Promise<string> {
	const folder = await confinedPath(cwd, rel).then(
		(absolute) => lstat(absolute).then((stats) => stats.isDirectory(), () => false),
		() => false,
	);
	const why = `is not among the changed files (against ${base})`;
	return folder ? `${why}: it is a folder, and changes are listed, diffed and reverted file by file (name the changed files in it)` : why;
}

/** Puts a file back as the session's first edit or write found it (a file it created goes to the trash). */
async function revertRecorded(file: RecordedFile, absolute: string, rel: string, trash: Trash): Promise<Omit<RevertedFile, "path">> {
	const content = file.before.content;
	if (content === undefined) return { outcome: "refused", reason: `its content before the session's first edit was not kept (${file.before.omitted})` };
	if (content === null) return { outcome: "trashed", trashedTo: await trash.put(absolute, rel) };
	const mode = await stat(absolute).then(
		(stats) => stats.mode & 0o7777,
		() => 0o644,
	);
	await writeFileAtomicallyAsync(absolute, content, { mode, createFolder: {} });
	return { outcome: "restored" };
}

function shortId(commit: string): string {
	return commit.slice(0, 12);
}

function gitBase(view: GitView, since: Since, startedAt: string | undefined): ChangesList["base"] {
	const commit = view.baseCommit;
	if (since === "session_start") {
		const what = commit ? `commit ${shortId(commit)}` : "no commit yet";
		return { kind: "session_start", ...(commit ? { commit } : {}), description: `Since the session started (${startedAt}): ${what} and the untracked files then` };
	}
	if (!commit) return { kind: "head", description: "HEAD: the repository has no commit yet, so every file is new" };
	const where = view.branch ? `on ${view.branch}` : "detached";
	return { kind: "head", commit, description: `HEAD (${shortId(commit)}, ${where})` };
}

function repositoryState(view: GitView): ChangesList["repository"] {
	return {
		root: view.root,
		...(view.branch ? { branch: view.branch } : {}),
		...(view.head ? { head: view.head } : {}),
		detached: view.head !== undefined && view.branch === undefined,
		...(view.operation ? { operation: view.operation } : {}),
	};
}

