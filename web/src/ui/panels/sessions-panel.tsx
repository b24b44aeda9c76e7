/** The session sidebar: this project's sessions or all projects', with switch, new, rename and close. */
import { useState } from "preact/hooks";
import type { SessionSummary } from "../../../src/client/index";
import type { Controller } from "../state/controller";
import { redact } from "../render/redact";

export function SessionsPanel({ controller }: { controller: Controller }) {
	const { sessions, sessionId, session, ready } = controller.state;
	const [scope, setScope] = useState<"project" | "all">("project");
	const [renaming, setRenaming] = useState(false);
	const [name, setName] = useState("");
	const rows = scope === "project" ? sessions.project : sessions.all;
	return (
		<section class="panel sessions" aria-label="Sessions">
			<div class="panel-actions">
				<button type="button" class="primary" disabled={!ready} onClick={() => void controller.newSession()}>
					New session
				</button>
				<button
					type="button"
					disabled={!ready}
					onClick={() => {
						setName(session?.sessionName ?? "");
						setRenaming(true);
					}}
				>
					Rename
				</button>
			</div>
			{renaming && (
				<form
					class="rename"
					onSubmit={(e) => {
						e.preventDefault();
						setRenaming(false);
						void controller.rename(name);
					}}
				>
					<input value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} aria-label="Session name" autoFocus />
					<button type="submit">Save</button>
				</form>
			)}
			<div class="tabs" role="tablist">
				<button type="button" role="tab" aria-selected={scope === "project"} onClick={() => setScope("project")}>
					This project
				</button>
				<button type="button" role="tab" aria-selected={scope === "all"} onClick={() => setScope("all")}>
					All projects
				</button>
			</div>
			<ul class="session-list">
				{rows.length === 0 && <li class="empty">No recorded sessions yet.</li>}
				{rows.map((row) => (
					<SessionRow key={row.sessionId} row={row} current={row.sessionId === sessionId} disabled={!ready} controller={controller} showCwd={scope === "all"} />
				))}
			</ul>
		</section>
	);
}

function SessionRow(props: { row: SessionSummary; current: boolean; disabled: boolean; controller: Controller; showCwd: boolean }) {
	const { row, current, disabled, controller } = props;
	const title = row.name || row.firstMessage || "New session";
	return (
		<li class={current ? "current" : ""} data-session-id={row.sessionId}>
			<button type="button" class="session-open" disabled={disabled || current} onClick={() => void controller.switchSession(row.path || row.sessionId)}>
				<span class="session-title">{redact(title).slice(0, 80)}</span>
				<span class="session-meta">
					{props.showCwd ? `${row.cwd} · ` : ""}
					{row.messageCount} messages · {new Date(row.modified).toLocaleString()}
					{row.loaded ? " · open" : ""}
				</span>
			</button>
			{row.loaded && !row.primary && (
				<button type="button" class="link close" disabled={disabled} title="Close (it stays on disk)" onClick={() => void controller.closeSession(row.sessionId)}>
					Close
				</button>
			)}
		</li>
	);
}
