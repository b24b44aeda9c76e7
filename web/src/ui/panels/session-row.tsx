/**
 * One session of the Sessions panel's list: its title with its tags (fork, or what a feature made it for: job,
 * workflow) and live state (running, needs attention), when it was active, the messages a user sees; Close for
 * a loaded one, Delete (asked to confirm, in the row) for a recorded one; and, folded under it, the sessions
 * its jobs and workflows ran in.
 */
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { SessionSummary } from "../../../../src/client/index.js";
import type { Controller } from "../../state/controller";
import { liveLabel } from "../../state/session-live";
import { internal } from "../../state/session-rows";
import { activeTime, relativeTime, shortFolder } from "../../state/session-title";

/**
 * Characters of the session id shown to tell same-titled sessions apart: its end, because ids made close in
 * time share their start (it encodes the time).
 */
const ID_TAIL_CHARS = 6;

export interface RowProps {
	controller: Controller;
	row: SessionSummary;
	title: string;
	/** The title of the session it was forked from ("another session" when not listed), for a fork. */
	parentTitle?: string;
	showId?: boolean;
	showCwd: boolean;
	/** Its internal sessions, with their titles. */
	children?: Array<{ row: SessionSummary; title: string }>;
	onOpen(row: SessionSummary): void;
}

export function SessionRow(props: RowProps) {
	const { controller, row, title, children = [] } = props;
	const { ready, sessionId } = controller.state;
	const current = row.sessionId === sessionId;
	const [confirming, setConfirming] = useState(false);
	const [unfolded, setUnfolded] = useState(false);
	const cancel = useRef<HTMLButtonElement>(null);
	// Before the paint: the confirmation never shows without its safe choice focused (an Enter typed as it appears cancels).
	useLayoutEffect(() => void (confirming && cancel.current?.focus()), [confirming]);
	const live = controller.live.get(row.sessionId);
	const kinds = new Set(children.map((c) => c.row.kind));
	const nested = `${children.length} ${kinds.size === 1 ? `${[...kinds][0]}${children.length > 1 ? "s" : ""}` : "internal"}`;
	return (
		<li class={current ? "current" : ""} data-session-id={row.sessionId}>
			<button type="button" class="session-open" aria-current={current ? "true" : undefined} disabled={!ready} onClick={() => props.onOpen(row)}>
				<span class="session-title">
					<span>{title.slice(0, 120)}</span>
					{props.parentTitle !== undefined && !internal(row) && (
						<span class="tag fork-tag" title={`Forked from “${props.parentTitle}”`}>
							fork
						</span>
					)}
					{live && (
						<span class={`job-status ${live.state === "running" ? "running" : "failed"}`} title={live.state === "attention" ? `Needs attention: ${live.why}` : undefined}>
							{liveLabel(live)}
						</span>
					)}
				</span>
				<span class="session-meta">
					{internal(row) && <span class="tag muted">{row.kind}</span>}
					<span>{relativeTime(activeTime(row))}</span>
					<span>
						{row.messageCount} message{row.messageCount === 1 ? "" : "s"}
					</span>
					{props.showId && <span class="session-id">…{row.sessionId.slice(-ID_TAIL_CHARS)}</span>}
					{row.loaded && <span>open</span>}
					{props.showCwd && (
						<span class="cwd" title={row.cwd}>
							{shortFolder(row.cwd)}
						</span>
					)}
				</span>
			</button>
			<span class="session-actions">
				{row.loaded && !row.primary && (
					<button type="button" class="link close" disabled={!ready} title="Close (it stays on disk)" onClick={() => void controller.closeSession(row.sessionId)}>
						Close
					</button>
				)}
				{row.recorded && !row.primary && (
					<button type="button" class="link" disabled={!ready || confirming} aria-label={`Delete “${title.slice(0, 60)}”`} onClick={() => setConfirming(true)}>
						Delete
					</button>
				)}
			</span>
			{children.length > 0 && (
				<button type="button" class="link session-fold" aria-expanded={unfolded} title="The sessions its jobs and workflows ran in" onClick={() => setUnfolded(!unfolded)}>
					{unfolded ? "▾" : "▸"} {nested}
				</button>
			)}
			{confirming && (
				<div class="rename" role="group" aria-label="Confirm deletion">
					<p class="hint">
						Move “{title.slice(0, 60)}” to the trash? Trash can restore it.
						{current && " This page then shows the service's first session."}
					</p>
					<div class="row">
						<button type="button" class="small" ref={cancel} onClick={() => setConfirming(false)}>
							Cancel
						</button>
						<button type="button" class="small danger" disabled={!ready} onClick={() => void controller.trash.remove(row, title).then((gone) => gone || setConfirming(false))}>
							Move to trash
						</button>
					</div>
				</div>
			)}
			{unfolded && (
				<ul class="session-list" aria-label={`Sessions of “${title.slice(0, 60)}”`}>
					{children.map((child) => (
						<SessionRow key={child.row.sessionId} controller={controller} row={child.row} title={child.title} showCwd={false} onOpen={props.onOpen} />
					))}
				</ul>
			)}
		</li>
	);
}
