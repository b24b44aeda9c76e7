/**
 * Sessions: this project's or all projects', newest activity first (a fork by its own creation time), titled
 * by the one rule of session-title.ts. The current one is marked (aria-current), forks carry a tag, and rows
 * with the same title show the end of their id. New session, rename (inline, with Cancel and Esc), close.
 */
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { SessionSummary } from "../../../../src/client/index.js";
import { redact } from "../../render/redact";
import { activeTime, relativeTime, shortFolder, UNTITLED } from "../../state/session-title";
import { Icon } from "../icons";
import { ProjectButton } from "../project-picker";
import type { PanelProps } from "./panel";
import { EmptyState, PanelLayout } from "./panel-layout";

/**
 * Characters of the session id shown to tell same-titled sessions apart: its end, because ids made close in
 * time share their start (it encodes the time).
 */
const ID_TAIL_CHARS = 6;

export function SessionsPanel({ controller, done }: PanelProps) {
	const { sessions, sessionId, ready } = controller.state;
	const [scope, setScope] = useState<"project" | "all">("project");
	const [renaming, setRenaming] = useState(false);
	const renameButton = useRef<HTMLButtonElement>(null);
	const rows = [...(scope === "project" ? sessions.project : sessions.all)].sort((a, b) => activeTime(b) - activeTime(a));
	const titles = new Map(rows.map((row) => [row.sessionId, redact(controller.rowTitle(row))]));
	const byPath = new Map(rows.map((row) => [row.path, row]));
	const count = new Map<string, number>();
	for (const title of titles.values()) count.set(title, (count.get(title) ?? 0) + 1);
	const endRename = () => {
		setRenaming(false);
		requestAnimationFrame(() => renameButton.current?.focus());
	};

	return (
		<PanelLayout
			title="Sessions"
			actions={
				<>
					<ProjectButton controller={controller} done={done} />
					<button type="button" ref={renameButton} class="small" disabled={!ready || renaming} onClick={() => setRenaming(true)}>
						Rename
					</button>
					<button
						type="button"
						class="primary small"
						disabled={!ready}
						onClick={() => {
							void controller.newSession().then(done);
						}}
					>
						<Icon name="plus" />
						New session
					</button>
				</>
			}
		>
			{renaming && <RenameForm initial={renameStart(controller.state.session?.sessionName, redact(controller.title()))} onSave={(name) => controller.rename(name)} onEnd={endRename} />}
			<div class="segmented" role="group" aria-label="Which sessions">
				<button type="button" aria-pressed={scope === "project"} onClick={() => setScope("project")}>
					This project
				</button>
				<button type="button" aria-pressed={scope === "all"} onClick={() => setScope("all")}>
					All projects
				</button>
			</div>
			{rows.length === 0 ? (
				<EmptyState title="No sessions yet">
					<span>Sessions are recorded from their first message.</span>
				</EmptyState>
			) : (
				<ul class="session-list">
					{rows.map((row) => {
						const title = titles.get(row.sessionId)!;
						const parent = row.parentSession ? byPath.get(row.parentSession) : undefined;
						return (
							<SessionRow
								key={row.sessionId}
								row={row}
								title={title}
								parentTitle={row.parentSession ? (parent ? titles.get(parent.sessionId) : "another session") : undefined}
								showId={count.get(title)! > 1}
								showCwd={scope === "all"}
								current={row.sessionId === sessionId}
								disabled={!ready}
								onOpen={() => (row.sessionId === sessionId ? done() : void controller.switchSession(row).then(done))}
								onClose={() => void controller.closeSession(row.sessionId)}
							/>
						);
					})}
				</ul>
			)}
		</PanelLayout>
	);
}

function SessionRow(props: {
	row: SessionSummary;
	title: string;
	parentTitle: string | undefined;
	showId: boolean;
	showCwd: boolean;
	current: boolean;
	disabled: boolean;
	onOpen(): void;
	onClose(): void;
}) {
	const { row, current } = props;
	return (
		<li class={current ? "current" : ""} data-session-id={row.sessionId}>
			<button type="button" class="session-open" aria-current={current ? "true" : undefined} disabled={props.disabled} onClick={props.onOpen}>
				<span class="session-title">
					<span>{props.title.slice(0, 120)}</span>
					{props.parentTitle !== undefined && (
						<span class="tag fork-tag" title={`Forked from “${props.parentTitle}”`}>
							fork
						</span>
					)}
				</span>
				<span class="session-meta">
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
			{row.loaded && !row.primary && (
				<button type="button" class="link close" disabled={props.disabled} title="Close (it stays on disk)" onClick={props.onClose}>
					Close
				</button>
			)}
		</li>
	);
}

/** What the rename field starts with: the session's name, else the title it shows (never the "New session" placeholder). */
function renameStart(name: string | undefined, title: string): string {
	return name?.trim() || (title === UNTITLED ? "" : title);
}

/** Renames the current session: prefilled and selected, Esc or Cancel to give up, an empty name is refused inline. */
function RenameForm(props: { initial: string; onSave(name: string): Promise<boolean>; onEnd(): void }) {
	const [name, setName] = useState(props.initial);
	const [error, setError] = useState("");
	const input = useRef<HTMLInputElement>(null);
	useLayoutEffect(() => {
		input.current?.focus();
		input.current?.select();
	}, []);
	return (
		<form
			class="rename"
			aria-label="Rename session"
			onSubmit={(e) => {
				e.preventDefault();
				if (!name.trim()) {
					setError("A session needs a name: type one, or press Cancel (or Esc) to keep the current one.");
					input.current?.focus();
					return;
				}
				void props.onSave(name.trim()).then((saved) => saved && props.onEnd());
			}}
			onKeyDown={(e) => {
				if (e.key !== "Escape") return;
				e.preventDefault(); // Esc cancels the rename only: the drawer stays open
				e.stopPropagation();
				props.onEnd();
			}}
		>
			<input
				ref={input}
				value={name}
				onInput={(e) => {
					setName((e.target as HTMLInputElement).value);
					setError("");
				}}
				aria-label="Session name"
				aria-invalid={error ? "true" : undefined}
				aria-describedby={error ? "rename-error" : undefined}
				placeholder="Session name"
			/>
			{error && (
				<p id="rename-error" class="error-text" role="alert">
					{error}
				</p>
			)}
			<div class="row">
				<button type="button" class="small" onClick={props.onEnd}>
					Cancel
				</button>
				<button type="submit" class="primary small">
					Save
				</button>
			</div>
		</form>
	);
}
