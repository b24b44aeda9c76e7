/**
 * Changes: what the agent changed in the session's working directory, live from `changes_updated`. The base
 * it is shown against (HEAD, since the session started, or outside git what the session's own edits found),
 * the changed files with their status and counts, one file's diff (side by side on wide screens), a revert
 * with a confirmation (a file changed since it was listed is refused, said plainly), "Open in transcript" to
 * the call that last changed it, and review comments on diff lines, sent to the agent as one prompt.
 */
import { useState } from "preact/hooks";
import type { ChangedFile } from "../../../../src/client/index.js";
import { languageOf } from "../../render/diff-rows";
import { redact } from "../../render/redact";
import { type ChangesState, type ReviewComment, snippetAt } from "../../state/changes-state";
import type { Controller } from "../../state/controller";
import { DiffView } from "../diff-view";
import type { PanelProps } from "./panel";
import { EmptyState, PanelLayout, PanelSection, SnapshotPending } from "./panel-layout";
import "../../styles/changes.css";

/** A diff in the panel shows this many rows before it folds (a 512 KiB diff is some 20,000). */
const PANEL_DIFF_ROWS = 1_000;

const STATUS = { added: "A", modified: "M", deleted: "D", renamed: "R", untracked: "U" } as const;

export function ChangesPanel({ controller, done }: PanelProps) {
	const { ready, sessionId } = controller.state;
	const changes = controller.changes;
	const snapshot = ready && sessionId ? changes.list(sessionId) : undefined;
	const list = snapshot?.state === "loaded" ? snapshot.value : undefined;
	const open = sessionId ? changes.openFile(sessionId) : undefined;
	const file = list?.files.find((f) => f.path === open);
	const review = sessionId ? changes.review(sessionId) : [];
	return (
		<PanelLayout
			title="Changes"
			actions={
				// Also while a start-based listing failed (asked before the first prompt), so it can be switched back.
				sessionId && (list?.repository || changes.since(sessionId) !== "head") && (
					<select aria-label="Base" value={changes.since(sessionId!)} onChange={(e) => changes.setSince(sessionId!, (e.target as HTMLSelectElement).value as "head")}>
						<option value="head">Against HEAD</option>
						<option value="session_start">Since session start</option>
					</select>
				)
			}
		>
			{!list ? (
				<SnapshotPending snapshot={snapshot} ready={ready} loading="Reading the changes…" failed="The changes could not be read" onRetry={() => changes.retry(sessionId!)} />
			) : (
				<>
					<p class="hint changes-base">
						Base: {list.base.description}
						{list.notes.map((note) => (
							<span key={note}>{note}</span>
						))}
					</p>
					{list.files.length === 0 ? (
						<EmptyState title="No changes">
							<span>Files the agent edits, writes or changes with commands show here.</span>
						</EmptyState>
					) : (
						<PanelSection title={`Files (${list.total})`}>
							<ul class="change-list">
								{list.files.map((f) => (
									<li key={f.path}>
										<button type="button" aria-expanded={f.path === open} onClick={() => changes.setOpenFile(sessionId!, f.path === open ? undefined : f.path)}>
											<b class={`st ${f.status}`} title={f.status}>
												{STATUS[f.status]}
											</b>
											<span class="path">{redact(f.path)}</span>
											{/* The base's note says conflicted files are marked: here is the mark. */}
											{f.conflicted && (
												<span class="tag conflict" title="Unmerged: the operation in progress stopped on it">
													conflict
												</span>
											)}
											{f.binary ? <span class="hint">binary</span> : <Counts file={f} />}
										</button>
									</li>
								))}
								{list.truncated && <li class="hint">… and {list.total - list.files.length} more</li>}
							</ul>
						</PanelSection>
					)}
					{file && <FileChange key={file.path} controller={controller} changes={changes} sessionId={sessionId!} file={file} done={done} />}
					{review.length > 0 && <Review changes={changes} sessionId={sessionId!} comments={review} />}
				</>
			)}
		</PanelLayout>
	);
}

function Counts({ file }: { file: ChangedFile }) {
	return (
		<span class="counts" aria-label={`${file.added} added, ${file.removed} removed`}>
			<span class="plus">+{file.added}</span> <span class="minus">−{file.removed}</span>
		</span>
	);
}

/** One file: its actions, its diff, and the comment being written on its lines. */
function FileChange(props: { controller: Controller; changes: ChangesState; sessionId: string; file: ChangedFile; done(): void }) {
	const { changes, sessionId, file } = props;
	const [confirming, setConfirming] = useState(false);
	const [refusal, setRefusal] = useState("");
	const [split, setSplit] = useState(false);
	const [picked, setPicked] = useState<[number, number] | undefined>(undefined);
	const [text, setText] = useState("");
	const [token, setToken] = useState(file.token);
	if (token !== file.token) {
		// The file changed: its diff is read again, and rows picked in the old one mean nothing now.
		setToken(file.token);
		setPicked(undefined);
	}
	const diff = changes.diff(sessionId, file.path);
	const rows = diff.state === "loaded" ? diff.value.rows : [];
	const call = toolCallOf(props.controller, file.path);
	const jump = () => {
		const card = document.getElementById(`tool-${call}`);
		if (!card) return setRefusal("That call is in an earlier part of the transcript: scroll up to load it.");
		props.done();
		// After the frame in which a phone's drawer closes (the transcript is inert until then, and done() focuses the composer).
		requestAnimationFrame(() => {
			card.scrollIntoView({ block: "center" });
			card.focus({ preventScroll: true });
		});
	};
	const pickedAt = picked && sideOf(rows, picked);
	const marked = new Set<number>();
	for (const c of changes.review(sessionId)) if (c.path === file.path) rows.forEach((row, i) => (c.side === "old" ? row.k === "-" && row.o! >= c.from && row.o! <= c.to : row.n !== undefined && row.n >= c.from && row.n <= c.to) && marked.add(i));
	return (
		<section class="file-change" aria-label={`Diff of ${file.path}`} data-split={split || undefined}>
			<div class="file-bar">
				<code>{redact(file.path)}</code>
				<div class="button-row">
					{call && (
						<button type="button" class="small" onClick={jump}>
							Open in transcript
						</button>
					)}
					<button type="button" class="small wide-only" aria-pressed={split} onClick={() => setSplit(!split)}>
						Side by side
					</button>
					<button type="button" class={`small${confirming ? " primary" : " danger"}`} onClick={() => {
						if (!confirming) return setConfirming(true);
						setConfirming(false);
						void changes.revert(sessionId, file).then((why) => setRefusal(why ?? ""));
					}}>
						{confirming ? "Confirm revert" : "Revert…"}
					</button>
					{confirming && (
						<button type="button" class="small" onClick={() => setConfirming(false)}>
							Cancel
						</button>
					)}
				</div>
			</div>
			{confirming && <p class="hint">Put {redact(file.path)} back as the base has it? {file.status === "untracked" || file.status === "added" ? "It is moved to the trash folder." : "Its changes are discarded."}</p>}
			{refusal && (
				<p class="error-text" role="alert">
					{refusal}
				</p>
			)}
			{diff.state === "failed" ? (
				<p class="error-text">{diff.error}</p>
			) : diff.state === "loading" ? (
				<p class="hint">Loading the diff…</p>
			) : (
				<>
					{diff.value.note && <p class="hint">{diff.value.note}</p>}
					{diff.value.truncated && <p class="hint">The diff is cut at 512 KiB.</p>}
					{rows.length > 0 ? (
						<DiffView rows={rows} lang={languageOf(file.path)} limit={PANEL_DIFF_ROWS} split={split} picked={picked} marked={marked} onPick={(i, extend) => setPicked(extend && picked ? [Math.min(picked[0], i), Math.max(picked[1], i)] : [i, i])} />
					) : (
						!diff.value.note && <p class="hint">{diff.value.binary ? "Binary file: no diff to show." : "No lines changed."}</p>
					)}
				</>
			)}
			{pickedAt && (
				<form
					class="comment-form"
					onSubmit={(e) => {
						e.preventDefault();
						if (!text.trim()) return;
						changes.comment(sessionId, { path: file.path, ...pickedAt, snippet: snippetAt(rows, pickedAt), text: text.trim() });
						setText("");
						setPicked(undefined);
					}}
				>
					<label class="field">
						<span>Comment on {lineText(pickedAt)}</span>
						<textarea name="review-comment" rows={2} value={text} maxLength={4000} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
					</label>
					<div class="button-row">
						<button type="submit" class="primary small" disabled={!text.trim()}>
							Add to review
						</button>
						<button type="button" class="small" onClick={() => setPicked(undefined)}>
							Cancel
						</button>
					</div>
				</form>
			)}
		</section>
	);
}

/** The pending review: each comment editable and removable, all sent as one prompt. */
function Review({ changes, sessionId, comments }: { changes: ChangesState; sessionId: string; comments: ReviewComment[] }) {
	const [sending, setSending] = useState(false);
	return (
		<PanelSection title={`Pending review (${comments.length})`}>
			<ul class="review">
				{comments.map((c) => (
					<li key={c.id}>
						<div class="hint">
							{redact(c.path)}, {lineText(c)}
							{changes.stale(sessionId, c) && <b class="stale"> stale: the code moved since</b>}
						</div>
						<pre>{c.snippet}</pre>
						<textarea aria-label={`Comment on ${c.path}, ${lineText(c)}`} rows={2} value={c.text} maxLength={4000} onInput={(e) => changes.edit(sessionId, c.id, (e.target as HTMLTextAreaElement).value)} />
						<button type="button" class="link" onClick={() => changes.edit(sessionId, c.id, undefined)}>
							Remove
						</button>
					</li>
				))}
			</ul>
			<button
				type="button"
				class="primary"
				disabled={sending || comments.some((c) => !c.text.trim())}
				onClick={() => {
					setSending(true);
					void changes.sendReview(sessionId).finally(() => setSending(false));
				}}
			>
				Send review to the agent
			</button>
		</PanelSection>
	);
}

function lineText(at: { from: number; to: number; side: "new" | "old" }): string {
	return `${at.side === "old" ? "removed " : ""}${at.from === at.to ? `line ${at.from}` : `lines ${at.from}–${at.to}`}`;
}

/** The lines a row selection covers: new-side numbers, or old-side ones when only removed lines are picked. */
function sideOf(rows: { k: string; o?: number; n?: number }[], [a, b]: [number, number]) {
	const chosen = rows.slice(a, b + 1).filter((row) => row.k !== "@");
	const side = chosen.every((row) => row.k === "-") ? "old" : "new";
	const nums = chosen.map((row) => (side === "old" ? row.o : row.n)).filter((n): n is number => n !== undefined);
	return nums.length ? { side, from: Math.min(...nums), to: Math.max(...nums) } as const : undefined;
}

/** The id of the loaded transcript's last edit or write of `path` (relative to the session's folder). */
function toolCallOf(controller: Controller, path: string): string | undefined {
	const cwd = controller.state.session?.cwd;
	const messages = controller.transcript()?.messages ?? [];
	for (let m = messages.length - 1; m >= 0; m--) {
		const content = messages[m]!.content;
		if (!Array.isArray(content)) continue;
		for (let b = content.length - 1; b >= 0; b--) {
			const block = content[b]!;
			if (block.type !== "toolCall" || (block.name !== "edit" && block.name !== "write")) continue;
			const arg = String((block.arguments as { path?: unknown }).path ?? "").replace(/^@/, "").replace(/^\.\//, "");
			if (arg === path || arg === `${cwd}/${path}`) return block.id;
		}
	}
	return undefined;
}
