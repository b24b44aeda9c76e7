/**
 * The Changes panel's state: the session's changed files (changes_get, read again on every `changes_updated`,
 * never polled), one file's diff at a time, reverts, and the pending review: comments on diff lines, kept per
 * session across panel switches until they are sent to the agent as one prompt.
 */
import type { ChangedFile, ChangesList, FileDiff } from "../../../src/client/index.js";
import { type DiffRow, parseDiff } from "../render/diff-rows.js";
import { failureText, type PanelContext, runCommand, SessionSnapshots, type Snapshot } from "./panel-context.js";

export type Since = "head" | "session_start";

/** Diffs kept loaded at most (each may be up to 512 KiB). */
const MAX_KEPT_DIFFS = 8;

/** A comment on diff lines, with the code as it was when written (what is sent, even once it is stale). */
export interface ReviewComment {
	id: number;
	path: string;
	/** The lines' numbers, new side (old side for removed lines), and which side. */
	from: number;
	to: number;
	side: "new" | "old";
	snippet: string;
	text: string;
}

export class ChangesState {
	private readonly lists: SessionSnapshots<ChangesList>;
	private readonly diffs = new Map<string, Snapshot<FileDiff & { rows: DiffRow[] }>>();
	private readonly sinces = new Map<string, Since>();
	private readonly reviews = new Map<string, ReviewComment[]>();
	/** The file whose diff is open, per session (kept across panel switches, as the review is). */
	private readonly opened = new Map<string, string>();
	private nextId = 1;

	constructor(
		private readonly context: PanelContext,
		private readonly send: (sessionId: string, text: string) => Promise<boolean>,
	) {
		this.lists = new SessionSnapshots(
			context,
			(sessionId) => context.client.call("changes_get", { since: this.since(sessionId) }, { sessionId }),
			(sessionId) => this.dropDiffs(sessionId),
		);
		context.client.on("changes_updated", ({ sessionId }) => {
			this.dropDiffs(sessionId);
			this.lists.refresh(sessionId);
		});
	}

	list(sessionId: string): Snapshot<ChangesList> {
		return this.lists.get(sessionId);
	}

	retry(sessionId: string): void {
		this.lists.forget(sessionId);
	}

	since(sessionId: string): Since {
		return this.sinces.get(sessionId) ?? "head";
	}

	setSince(sessionId: string, since: Since): void {
		this.sinces.set(sessionId, since);
		this.lists.forget(sessionId);
	}

	openFile(sessionId: string): string | undefined {
		return this.opened.get(sessionId);
	}

	setOpenFile(sessionId: string, path: string | undefined): void {
		if (path === undefined) this.opened.delete(sessionId);
		else this.opened.set(sessionId, path);
		this.context.changed();
	}

	/** A file's diff (loaded on first ask, again after each change). */
	diff(sessionId: string, path: string): Snapshot<FileDiff & { rows: DiffRow[] }> {
		const key = `${sessionId}\n${path}`;
		const known = this.diffs.get(key);
		if (known) return known;
		// A few diffs are kept (the open file's, and those the review's comments are on), not every file ever opened.
		if (this.diffs.size >= MAX_KEPT_DIFFS) this.diffs.delete(this.diffs.keys().next().value!);
		this.diffs.set(key, { state: "loading" });
		void this.context.client.call("changes_diff", { path, since: this.since(sessionId) }, { sessionId }).then(
			(diff) => this.diffs.get(key)?.state === "loading" && this.diffs.set(key, { state: "loaded", value: { ...diff, rows: parseDiff(diff.diff) } }),
			(error) => this.diffs.get(key)?.state === "loading" && this.diffs.set(key, { state: "failed", error: failureText(error) }),
		).then(() => this.context.changed());
		return { state: "loading" };
	}

	private dropDiffs(sessionId: string): void {
		for (const key of this.diffs.keys()) if (key.startsWith(`${sessionId}\n`)) this.diffs.delete(key);
	}

	/** Reverts one file as it was listed; answers undefined when done, else why not (the service's words). */
	async revert(sessionId: string, file: ChangedFile): Promise<string | undefined> {
		const answer = await runCommand(this.context, "Revert", "changes_revert", { paths: [file.path], tokens: { [file.path]: file.token }, confirm: true, since: this.since(sessionId) }, sessionId);
		const done = answer?.data.files[0];
		if (!done) return "The revert failed.";
		if (done.outcome === "refused") return `Not reverted: ${done.reason ?? "refused"}.`;
		this.context.announce(done.outcome === "trashed" ? `${file.path} moved to the trash folder` : `${file.path} restored`);
		return undefined;
	}

	review(sessionId: string): ReviewComment[] {
		return this.reviews.get(sessionId) ?? [];
	}

	comment(sessionId: string, comment: Omit<ReviewComment, "id">): void {
		this.reviews.set(sessionId, [...this.review(sessionId), { ...comment, id: this.nextId++ }]);
		this.context.changed();
	}

	edit(sessionId: string, id: number, text: string | undefined): void {
		const kept = this.review(sessionId).flatMap((c) => (c.id !== id ? [c] : text === undefined ? [] : [{ ...c, text }]));
		this.reviews.set(sessionId, kept);
		this.context.changed();
	}

	/** Whether a comment's lines no longer hold its snippet in the file's diff now (undefined: not known). */
	stale(sessionId: string, comment: ReviewComment): boolean | undefined {
		const diff = this.diffs.get(`${sessionId}\n${comment.path}`);
		if (diff?.state !== "loaded") return this.lists.peek(sessionId)?.files.some((f) => f.path === comment.path) === false ? true : undefined;
		return snippetAt(diff.value.rows, comment) !== comment.snippet;
	}

	/** Sends the pending review as one prompt; it is cleared once the service took it. */
	async sendReview(sessionId: string): Promise<boolean> {
		const comments = this.review(sessionId);
		if (comments.length === 0) return false;
		// Each commented file as it is now, to tell which comments went stale (a file no longer changed: all of its).
		const now = new Map<string, DiffRow[]>();
		for (const path of new Set(comments.map((c) => c.path))) {
			const diff = await this.context.client.call("changes_diff", { path, since: this.since(sessionId) }, { sessionId }).catch(() => undefined);
			now.set(path, diff ? parseDiff(diff.diff) : []);
		}
		const sent = await this.send(sessionId, reviewPrompt(comments, (c) => snippetAt(now.get(c.path)!, c) !== c.snippet));
		if (sent) {
			this.reviews.delete(sessionId);
			this.context.changed();
		}
		return sent;
	}
}

/** The text of a side's lines `from`..`to` in a diff's rows (what a comment on them quotes). */
export function snippetAt(rows: DiffRow[], at: { from: number; to: number; side: "new" | "old" }): string {
	const key = at.side === "new" ? "n" : "o";
	return rows
		.filter((row) => row.k !== "@" && row[key] !== undefined && row[key]! >= at.from && row[key]! <= at.to && (at.side === "old" ? row.k === "-" || row.k === " " : row.k !== "-"))
		.map((row) => row.t)
		.join("\n");
}

/** One prompt for a whole review: each comment with its file, lines and the code it was written on. */
export function reviewPrompt(comments: ReviewComment[], isStale: (c: ReviewComment) => boolean): string {
	const parts = comments.map((c, n) => {
		const lines = c.from === c.to ? `line ${c.from}` : `lines ${c.from}-${c.to}`;
		const stale = isStale(c) ? " (stale: the code has changed or moved since this comment was written; the snippet is as it was then)" : "";
		const fence = c.snippet.includes("```") ? "~~~~" : "```";
		return `${n + 1}. ${c.path}, ${c.side === "old" ? "removed " : ""}${lines}${stale}:\n${fence}\n${c.snippet}\n${fence}\n${c.text.trim()}`;
	});
	return `Please address my review of your changes (${comments.length} comment${comments.length === 1 ? "" : "s"}):\n\n${parts.join("\n\n")}`;
}
