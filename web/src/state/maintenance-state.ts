/**
 * The maintenance panel's client state: context and cost (get_session_stats once, then every session_stats
 * event), compaction with its before → after report, cancelling queued messages, session downloads, pruning
 * old sessions (a dry run first), the memory inspector and the doctor. Nothing here polls: figures change by
 * events, the rest when the user asks.
 */
import type { CommandResult, CompactionResult, DoctorCheck, SessionStats } from "../../../src/client/index.js";
import { failureText, type PanelContext } from "./panel-context";

export type DownloadFormat = "html" | "jsonl";
type PruneAnswer = CommandResult<"sessions_prune">;
type MemoryStatus = CommandResult<"memory_status">;
type MemoryEntries = CommandResult<"memory_entries">;

/** How long a saved file's object URL is kept before it is released (the browser has taken the file by then). */
const OBJECT_URL_LIFETIME_MS = 60_000;
/** Memory entries listed at most (the service's own limit). */
export const MEMORY_LIST_LIMIT = 100;
/**
 * How long the doctor's answer may take before the panel says it got none: above the service's own worst case
 * (the memory server's 10 s, the MCP servers' 20 s, the model's 30 s when asked), with room for a loaded machine.
 */
export const DOCTOR_ANSWER_MS = 90_000;

export interface MemoryInspector {
	sessionId: string;
	status: MemoryStatus | undefined;
	statusError: string | undefined;
	entries: MemoryEntries | undefined;
	entriesError: string | undefined;
	/** The search the entries answer (blank: newest first). */
	query: string;
	loading: boolean;
	/** Entry ids chosen to forget. */
	selected: Set<string>;
	forgetting: boolean;
	/** What the last forget did. */
	forgotten: string | undefined;
}

export class MaintenanceState {
	/** The latest figures of each session (from get_session_stats and session_stats). */
	readonly stats = new Map<string, SessionStats>();
	/** Sessions compacting now (ours or automatic, from compaction_start/_end). */
	readonly compacting = new Set<string>();
	compaction: { sessionId: string; result?: CompactionResult; error?: string } | undefined;
	download: { busy?: DownloadFormat; error?: string; saved?: string } = {};
	queueError: string | undefined;
	prune: { running: boolean; days: number; listed?: PruneAnswer; removed?: PruneAnswer; error?: string } = { running: false, days: 0 };
	memory: MemoryInspector | undefined;
	doctor: { running: boolean; checkModel: boolean; checks?: DoctorCheck[]; ok?: boolean; error?: string } = { running: false, checkModel: false };

	constructor(
		private readonly context: PanelContext,
		/** The access token saved in this tab, for the download route (sent only as a header). */
		private readonly token: () => string | undefined,
	) {
		context.client.on("session_stats", (event) => {
			const { type: _, seq: __, ...stats } = event;
			this.stats.set(event.sessionId, stats as SessionStats);
			context.changed();
		});
		context.client.on("compaction_start", (event) => {
			this.compacting.add(event.sessionId);
			context.changed();
		});
		context.client.on("compaction_end", (event) => {
			this.compacting.delete(event.sessionId);
			context.changed();
		});
		context.client.on("agent_end", (event) => {
			// What the agent remembers may have changed in the run: the local store is cheap to read again.
			if (this.memory?.sessionId === event.sessionId && this.memory.entries) void this.loadEntries(this.memory.query);
		});
		context.client.onResync(({ sessionId }) => {
			// Read again when the panel next shows them (the events that would have updated them are gone).
			this.stats.delete(sessionId);
			this.compacting.delete(sessionId);
			if (this.memory?.sessionId === sessionId) this.memory = undefined;
		});
	}

	/** Reads a session's figures unless an event or an earlier read has brought them. */
	ensureStats(sessionId: string): void {
		if (this.stats.has(sessionId)) return;
		void this.context.client.call("get_session_stats", {}, { sessionId }).then(
			(stats) => {
				if (!this.stats.has(sessionId)) this.stats.set(sessionId, stats); // an event meanwhile is newer
				this.context.changed();
			},
			() => undefined, // the panel shows no figures; the next event brings them
		);
	}

	/** Compacts the session now; the report says how many tokens the context held before and after. */
	async compact(sessionId: string, instructions: string): Promise<void> {
		this.compaction = { sessionId };
		this.compacting.add(sessionId);
		this.context.changed(true);
		try {
			const text = instructions.trim();
			const result = await this.context.client.call("compact", text ? { customInstructions: text } : {}, { sessionId });
			this.compaction = { sessionId, result };
			this.context.announce(`Compacted: ${compactionSentence(result)}`);
		} catch (error) {
			this.compaction = { sessionId, error: failureText(error) };
		} finally {
			this.compacting.delete(sessionId);
			this.context.changed();
		}
	}

	/** Removes one waiting message; resolves its text (for the message box), or undefined when it was refused. */
	async cancelQueued(sessionId: string, kind: "steering" | "followUp", index: number): Promise<string | undefined> {
		this.queueError = undefined;
		try {
			const { removed } = await this.context.client.call("queue_cancel", { kind, index }, { sessionId });
			return removed;
		} catch (error) {
			this.queueError = failureText(error);
			return undefined;
		} finally {
			this.context.changed();
		}
	}

	/**
	 * Downloads the session as a file the browser saves. The route wants the same authentication as /rpc: the
	 * token (if any) goes in the Authorization header of a fetch, never in a URL, and the body is saved as a blob.
	 */
	async save(sessionId: string, format: DownloadFormat): Promise<void> {
		this.download = { busy: format };
		this.context.changed(true);
		try {
			const token = this.token();
			const response = await fetch(`/export/${encodeURIComponent(sessionId)}.${format}`, {
				headers: token ? { Authorization: `Bearer ${token}` } : {},
				cache: "no-store",
				credentials: "omit",
			});
			if (!response.ok) throw new Error((await response.text()).trim() || `the service answered HTTP ${response.status}`);
			const name = fileName(response.headers.get("Content-Disposition")) ?? `skiff-session-${sessionId}.${format}`;
			const url = URL.createObjectURL(await response.blob());
			const link = document.createElement("a");
			link.href = url;
			link.download = name;
			link.hidden = true;
			document.body.append(link);
			link.click();
			link.remove();
			window.setTimeout(() => URL.revokeObjectURL(url), OBJECT_URL_LIFETIME_MS);
			this.download = { saved: name };
			this.context.announce(`Saved ${name}.`);
		} catch (error) {
			this.download = { error: failureText(error) };
		} finally {
			this.context.changed();
		}
	}

	/** Lists the sessions older than `days` days that pruning would remove (nothing is removed). */
	listPrunable(days: number): Promise<void> {
		return this.runPrune(days, true);
	}

	/** Removes what the dry run listed (every file is checked again by the service just before). */
	confirmPrune(): Promise<void> {
		return this.runPrune(this.prune.days, false);
	}

	cancelPrune(): void {
		this.prune = { running: false, days: this.prune.days };
		this.context.changed();
	}

	/** Loads the memory inspector of a session (its status and entries) unless it is loaded for it. */
	ensureMemory(sessionId: string): void {
		if (this.memory?.sessionId === sessionId) return;
		this.memory = { sessionId, status: undefined, statusError: undefined, entries: undefined, entriesError: undefined, query: "", loading: false, selected: new Set(), forgetting: false, forgotten: undefined };
		void this.refreshMemory();
	}

	/** Reads the memory status (one cheap request to a remote server) and the entries again. */
	async refreshMemory(): Promise<void> {
		const memory = this.memory;
		if (!memory) return;
		const status = this.context.client.call("memory_status", {}, { sessionId: memory.sessionId }).then(
			(answer) => {
				memory.status = answer;
				memory.statusError = undefined;
			},
			(error: unknown) => void (memory.statusError = failureText(error)),
		);
		await Promise.all([status, this.loadEntries(memory.query)]);
		this.context.changed();
	}

	/** Lists the entries matching `query` (blank: the newest). */
	async loadEntries(query: string): Promise<void> {
		const memory = this.memory;
		if (!memory) return;
		memory.query = query;
		memory.loading = true;
		this.context.changed();
		try {
			const text = query.trim();
			const entries = await this.context.client.call("memory_entries", { limit: MEMORY_LIST_LIMIT, ...(text ? { query: text } : {}) }, { sessionId: memory.sessionId });
			if (memory.query !== query) return; // a newer search is under way
			memory.entries = entries;
			memory.entriesError = undefined;
			const listed = new Set(entries.entries.map((e) => e.id));
			memory.selected = new Set([...memory.selected].filter((id) => listed.has(id)));
		} catch (error) {
			memory.entriesError = failureText(error);
		} finally {
			if (memory.query === query) memory.loading = false;
			this.context.changed();
		}
	}

	toggleEntry(id: string): void {
		const memory = this.memory;
		if (!memory) return;
		const selected = new Set(memory.selected);
		if (!selected.delete(id)) selected.add(id);
		memory.selected = selected;
		this.context.changed();
	}

	/** Forgets the chosen entries (one write), then lists the store again. */
	async forgetSelected(): Promise<void> {
		const memory = this.memory;
		if (!memory || memory.selected.size === 0) return;
		memory.forgetting = true;
		this.context.changed(true);
		try {
			const { forgotten, missing } = await this.context.client.call("memory_forget", { ids: [...memory.selected] }, { sessionId: memory.sessionId });
			memory.selected = new Set();
			memory.forgotten = `Forgot ${plural(forgotten.length, "entry", "entries")}${missing.length ? ` (${plural(missing.length, "was", "were")} already gone)` : ""}.`;
			this.context.announce(memory.forgotten);
			await this.refreshMemory();
		} catch (error) {
			memory.entriesError = failureText(error);
		} finally {
			memory.forgetting = false;
			this.context.changed();
		}
	}

	setCheckModel(checkModel: boolean): void {
		this.doctor = { ...this.doctor, checkModel };
		this.context.changed();
	}

	/**
	 * Runs the doctor's checks (with the model request only when asked for). "Checking…" renders with the click;
	 * no answer within DOCTOR_ANSWER_MS (or a lost connection) ends it in an error, never an idle panel.
	 */
	async runDoctor(sessionId: string): Promise<void> {
		const checkModel = this.doctor.checkModel;
		this.doctor = { running: true, checkModel };
		this.context.changed(true);
		try {
			const { ok, checks } = await this.context.client.call("doctor", checkModel ? { checkModel: true } : {}, { sessionId, timeoutMs: DOCTOR_ANSWER_MS });
			this.doctor = { running: false, checkModel, ok, checks };
			const failed = checks.filter((c) => !c.ok).length;
			this.context.announce(failed ? `${plural(failed, "check", "checks")} failed.` : "Every check passed.");
		} catch (error) {
			this.doctor = { running: false, checkModel, error: failureText(error) };
		} finally {
			this.context.changed();
		}
	}

	private async runPrune(days: number, dryRun: boolean): Promise<void> {
		this.prune = { ...this.prune, running: true, days, error: undefined, ...(dryRun ? { listed: undefined, removed: undefined } : {}) };
		this.context.changed(true);
		try {
			const answer = await this.context.client.call("sessions_prune", { olderThanDays: days, dryRun });
			this.prune = dryRun ? { running: false, days, listed: answer } : { running: false, days, removed: answer };
			if (!dryRun) this.context.announce(`Removed ${plural(answer.sessions.length, "session", "sessions")}.`);
		} catch (error) {
			this.prune = { ...this.prune, running: false, error: failureText(error) };
		} finally {
			this.context.changed();
		}
	}
}

/** "12,400 → 3,100 tokens" (the after figure may be unknown). */
export function compactionSentence(result: CompactionResult): string {
	const after = result.tokensAfter === null ? "an unknown number of" : result.tokensAfter.toLocaleString("en-US");
	return `${result.tokensBefore.toLocaleString("en-US")} → ${after} tokens`;
}

export function plural(count: number, one: string, many: string): string {
	return `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`;
}

/** The file name of a `Content-Disposition: attachment; filename="…"` header. */
/** The name to save as: the session's own (`filename*`, RFC 8187) where the service sent one, else the ASCII one. */
function fileName(header: string | null): string | undefined {
	const encoded = header ? /filename\*=UTF-8''([^;\s]+)/i.exec(header) : null;
	if (encoded) {
		try {
			return decodeURIComponent(encoded[1]!);
		} catch {
			// a malformed encoding: the plain name below
		}
	}
	const match = header ? /filename="([^"]+)"/.exec(header) : null;
	return match?.[1];
}
