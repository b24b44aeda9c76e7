/**
 * What the Sessions panel shows instead of its list: the sessions a search found (title, the matched snippet
 * with the words marked, the messages a user sees), and the Trash with Restore. Both are lists of buttons the
 * arrows move through (see `arrowKeys`).
 */
import type { TrashedSession } from "../../../../src/client/index.js";
import type { Controller } from "../../state/controller";
import { redact } from "../../render/redact";
import { activeTime, relativeTime, sessionTitle, shortFolder, UNTITLED } from "../../state/session-title";
import { EmptyState } from "./panel-layout";

/** Up and Down move the focus between a list's buttons (Up from the first goes back to `before`, the search box). */
export function arrowKeys(event: KeyboardEvent, before?: HTMLElement | null): void {
	if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
	const list = (event.currentTarget as HTMLElement).querySelectorAll<HTMLElement>("button.session-open");
	const items = [...list];
	const at = items.indexOf(document.activeElement as HTMLElement);
	const next = event.key === "ArrowDown" ? items[at + 1] : at > 0 ? items[at - 1] : before;
	if (!next) return;
	event.preventDefault();
	next.focus();
}

export function SearchResults({ controller, onOpen, box }: { controller: Controller; onOpen(): void; box: HTMLInputElement | null }) {
	const { query, result } = controller.search;
	if (!result || result.state === "searching") return <p class="hint" role="status">Searching…</p>;
	if (result.state === "failed") {
		return (
			<EmptyState title="The search failed">
				<span>{result.error}</span>
				<button type="button" class="small" onClick={() => controller.search.retry()}>
					Try again
				</button>
			</EmptyState>
		);
	}
	if (result.hits.length === 0) {
		return (
			<EmptyState title={`No session holds “${query.trim().slice(0, 60)}”`}>
				<span>Titles and messages of every project were searched.</span>
			</EmptyState>
		);
	}
	return (
		<>
			<p class="hint" role="status">
				{result.hits.length} session{result.hits.length === 1 ? "" : "s"} found{result.truncated ? " (the first ones: say more to narrow it down)" : ""}
			</p>
			<ul class="session-list" id="session-hits" aria-label="Sessions found" onKeyDown={(e) => arrowKeys(e, box)}>
				{result.hits.map(({ session, snippet }) => (
					<li key={session.sessionId} class={session.sessionId === controller.state.sessionId ? "current" : ""}>
						<button type="button" class="session-open" disabled={!controller.state.ready} onClick={() => {
							onOpen(); // at once, as the list's rows: sessions-panel.tsx
							void controller.switchSession({ ...session, loaded: false });
						}}>
							<span class="session-title">
								<span>{redact(sessionTitle(session.name, session.firstMessage)).slice(0, 120)}</span>
							</span>
							<Marked text={redact(snippet)} query={query.trim()} />
							<span class="session-meta">
								<span>{relativeTime(activeTime(session))}</span>
								<span>{session.messageCount} messages</span>
								<span class="cwd" title={session.cwd}>
									{shortFolder(session.cwd)}
								</span>
							</span>
						</button>
					</li>
				))}
			</ul>
		</>
	);
}

/** The snippet with each place the query occurs marked (plain text, any case: as the service matched it). */
export function Marked({ text, query }: { text: string; query: string }) {
	const parts = [];
	const lower = text.toLowerCase();
	// Lower case can change a text's length (İ): then its places would not be the text's, and nothing is marked.
	const q = lower.length === text.length ? query.toLowerCase() : "";
	let at = 0;
	for (let hit = lower.indexOf(q); q && hit >= 0; hit = lower.indexOf(q, at)) {
		parts.push(text.slice(at, hit), <mark>{text.slice(hit, hit + q.length)}</mark>);
		at = hit + q.length;
	}
	parts.push(text.slice(at));
	return <span class="snippet">{parts}</span>;
}

export function TrashView({ controller }: { controller: Controller }) {
	const { items } = controller.trash;
	if (!items) return <p class="hint">Loading…</p>;
	if ("error" in items) {
		return (
			<EmptyState title="The trash could not be read">
				<span>{items.error}</span>
				<button type="button" class="small" onClick={() => void controller.trash.load()}>
					Try again
				</button>
			</EmptyState>
		);
	}
	if (items.sessions.length === 0) {
		return (
			<EmptyState title="The trash is empty">
				<span>Deleted sessions wait here until you restore them.</span>
			</EmptyState>
		);
	}
	return (
		<ul class="session-list" aria-label="Sessions in the trash">
			{items.sessions.map((item: TrashedSession) => {
				const title = redact(item.title || UNTITLED);
				return (
					<li key={item.trashId}>
						<span class="session-open">
							<span class="session-title">
								<span>{title.slice(0, 120)}</span>
							</span>
							<span class="session-meta">
								<span>deleted {relativeTime(Date.parse(item.deletedAt))}</span>
								<span class="cwd" title={item.cwd}>
									{shortFolder(item.cwd)}
								</span>
							</span>
						</span>
						<span class="session-actions">
							<button type="button" class="small" disabled={!controller.state.ready} aria-label={`Restore “${title.slice(0, 60)}”`} onClick={() => void controller.trash.restore(item, title)}>
								Restore
							</button>
						</span>
					</li>
				);
			})}
		</ul>
	);
}
