/**
 * One session's part of the changes feature: the base it keeps in the session file, as `custom` entries pi
 * records and otherwise ignores (so a restart, a reload, a fork or a clone keeps it, and tree navigation
 * finds the base of the branch it moves to):
 * - `skiff.changes.start`, in a git repository, at the session's first prompt: the commit checked out and the
 *   untracked files with their tokens, the base of `since: "session_start"`;
 * - `skiff.changes.before`, outside git, the first time the session's `edit` or `write` touches a file: what
 *   the file held (recorded-changes.ts bounds it), the base of every listing there.
 * A base that could not be recorded (a full disk) is kept in memory for as long as the session is loaded.
 */
import { resolve } from "node:path";
import { BEFORE_TOOL_CALL_MS, type FeatureSession, type HiddenContext, type SessionFeatures, type ToolCallEnd, type ToolCallStart } from "../../agent/types.js";
import type { FeatureTool } from "../../agent/feature-tool.js";
import { git, headCommit, repositoryRoot } from "../git.js";
import { fileToken } from "./file-token.js";
import { parseNulPaths } from "./git-output.js";
import type { SessionStart } from "./git-changes.js";
import { leadsInside, toolCallPath } from "./paths.js";
import { type BeforeRecord, recordBefore } from "./recorded-changes.js";
import { WriteDiffs } from "./write-diff.js";

export const START_ENTRY_TYPE = "skiff.changes.start";
export const BEFORE_ENTRY_TYPE = "skiff.changes.before";
export const CHANGES_RECORD_VERSION = 1;
/** At most this many untracked files are remembered at the session's start (more: the rest count as new). */
export const MAX_START_UNTRACKED = 1_000;
/** How long the first prompt may wait for their tokens (past it the rest count as new, as past the count). */
export const START_SNAPSHOT_MS = 2_000;
/** The tools whose calls keep a file's content before they change it (outside git). */
const FILE_WRITING_TOOLS = new Set(["edit", "write"]);

interface StartData {
	version: number;
	head: string | null;
	untracked: Array<[string, string]>;
	untrackedTruncated: boolean;
	at: string;
}

function readStart(data: unknown): SessionStart | undefined {
	const start = data as Partial<StartData> | undefined;
	if (start?.version !== CHANGES_RECORD_VERSION || !Array.isArray(start.untracked) || typeof start.at !== "string") return undefined;
	if (start.head !== null && typeof start.head !== "string") return undefined;
	const untracked = new Map(start.untracked.filter((pair): pair is [string, string] => Array.isArray(pair) && typeof pair[0] === "string" && typeof pair[1] === "string"));
	return { head: start.head, untracked, untrackedTruncated: start.untrackedTruncated === true, at: start.at };
}

function readBefore(data: unknown): BeforeRecord | undefined {
	const record = data as (Partial<BeforeRecord> & { version?: number }) | undefined;
	if (record?.version !== CHANGES_RECORD_VERSION || typeof record.path !== "string" || typeof record.token !== "string") return undefined;
	if (record.content !== null && record.content !== undefined && typeof record.content !== "string") return undefined;
	return { path: record.path, content: record.content, token: record.token, ...(typeof record.omitted === "string" ? { omitted: record.omitted } : {}) };
}

export class ChangesSession implements SessionFeatures {
	readonly tools: FeatureTool[] = [];
	private session: FeatureSession | undefined;
	private start: SessionStart | undefined;
	private starting: Promise<void> | undefined;
	private readonly before = new Map<string, BeforeRecord>();
	/** Records being taken (a second edit of the same file waits for the first's). */
	private readonly pending = new Map<string, Promise<void>>();
	private keptBytes = 0;
	private readonly writes: WriteDiffs;

	constructor(readonly cwd: () => string) {
		this.writes = new WriteDiffs(cwd);
	}

	get link(): FeatureSession | undefined {
		return this.session;
	}

	/** The base of `since: "session_start"`, once the first prompt recorded it. */
	sessionStart(): SessionStart | undefined {
		return this.start;
	}

	/** The content each file had when the session's edit or write first touched it (outside git). */
	recorded(): Iterable<BeforeRecord> {
		return this.before.values();
	}

	bind(session: FeatureSession): void {
		this.session = session;
		this.restore();
		session.onBranchChanged(() => this.restore());
	}

	activeToolNames(): string[] {
		return [];
	}

	/** At the first prompt in a git repository: records the session's start. Adds no context. */
	async contextForPrompt(): Promise<HiddenContext | undefined> {
		if (!this.start) {
			this.starting ??= this.recordStart().finally(() => {
				this.starting = undefined;
			});
			await this.starting;
		}
		return undefined;
	}

	/** Before an `edit` or `write` outside git: keeps what the file holds, the first time the session touches it. */
	async beforeToolCall(call: ToolCallStart): Promise<void> {
		await Promise.all([this.writes.before(call), this.keepBefore(call)]);
	}

	/** After a `write`: its diff against what the file held, for its card (write-diff.ts). */
	async toolResultDetails(call: ToolCallEnd): Promise<Record<string, unknown> | undefined> {
		return this.writes.after(call);
	}

	private keepBefore(call: ToolCallStart): Promise<void> | undefined {
		if (!FILE_WRITING_TOOLS.has(call.toolName)) return;
		const cwd = this.cwd();
		const target = toolCallPath(cwd, call.input);
		if (!target || this.before.has(target.path)) return;
		const { absolute, path } = target;
		const taking = this.pending.get(path);
		if (taking) return taking;
		const take = this.takeBefore(cwd, absolute, path).finally(() => this.pending.delete(path));
		this.pending.set(path, take);
		return take;
	}

	private async takeBefore(cwd: string, absolute: string, path: string): Promise<void> {
		const started = Date.now();
		if ((await repositoryRoot(cwd)) !== undefined) return; // in git, the base is git's
		if (!(await leadsInside(cwd, path))) return; // through a linked folder to outside: not the working directory's
		let record = await recordBefore(absolute, path, { files: this.before.size, bytes: this.keptBytes });
		if (this.before.has(path)) return;
		// Past the hook's time the tool ran anyway: what was read may already be its result, not the base.
		if (Date.now() - started >= BEFORE_TOOL_CALL_MS) record = { path, omitted: "it could not be read in time before the first edit", token: "unknown" };
		this.before.set(path, record);
		this.keptBytes += typeof record.content === "string" ? Buffer.byteLength(record.content) : 0;
		this.append(BEFORE_ENTRY_TYPE, { version: CHANGES_RECORD_VERSION, ...record });
	}

	private async recordStart(): Promise<void> {
		const cwd = this.cwd();
		if ((await repositoryRoot(cwd)) === undefined) return;
		const head = (await headCommit(cwd)) ?? null;
		// A folder holding a repository of its own comes whole, with a "/" the listing leaves out (git-changes.ts).
		const paths = parseNulPaths(await git(cwd, ["--literal-pathspecs", "ls-files", "--others", "--exclude-standard", "-z", "--", "."])).map((path) =>
			path.endsWith("/") ? path.slice(0, -1) : path,
		);
		const untracked: Array<[string, string]> = [];
		const deadline = Date.now() + START_SNAPSHOT_MS;
		for (const path of paths.slice(0, MAX_START_UNTRACKED)) {
			if (Date.now() > deadline) break;
			untracked.push([path, await fileToken(resolve(cwd, path))]);
		}
		if (this.start) return;
		const data: StartData = { version: CHANGES_RECORD_VERSION, head, untracked, untrackedTruncated: paths.length > untracked.length, at: new Date().toISOString() };
		this.start = readStart(data);
		this.append(START_ENTRY_TYPE, data);
	}

	/** Records an entry; one that cannot be written stays in memory only (the listing's notes say so). */
	private append(type: string, data: unknown): void {
		try {
			this.session?.checkCanRecord();
			this.session?.appendCustomEntry(type, data);
		} catch {
			this.unrecorded = true;
		}
	}

	/** A base could not be written to the session file: it is lost when the session unloads. */
	unrecorded = false;

	/** The branch's own records: its start, and the first record of each file. */
	private restore(): void {
		const session = this.session;
		if (!session) return;
		const starts = session.customEntries(START_ENTRY_TYPE);
		this.start = undefined;
		for (let i = starts.length - 1; i >= 0 && !this.start; i--) this.start = readStart(starts[i]!.data);
		this.before.clear();
		this.keptBytes = 0;
		for (const entry of session.customEntries(BEFORE_ENTRY_TYPE)) {
			const record = readBefore(entry.data);
			if (!record || this.before.has(record.path)) continue;
			this.before.set(record.path, record);
			this.keptBytes += typeof record.content === "string" ? Buffer.byteLength(record.content) : 0;
		}
	}
}
