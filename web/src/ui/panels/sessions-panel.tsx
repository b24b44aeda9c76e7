/**
 * Sessions: this project's or all projects', newest activity first (a fork by its own creation time), titled
 * by the one rule of session-title.ts, with the sessions of their jobs and workflows folded under them
 * (session-rows.ts). The current one is marked (aria-current), forks carry a tag, rows with the same title
 * show the end of their id. A search of every project's titles and messages, the Trash with Restore; New
 * session, rename (inline, with Cancel and Esc), close, delete (session-row.tsx).
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { SessionSummary } from "../../../../src/client/index.js";
import { redact } from "../../render/redact";
import { sessionNodes } from "../../state/session-rows";
import { UNTITLED } from "../../state/session-title";
import { Icon } from "../icons";
import { ProjectButton } from "../project-picker";
import type { PanelProps } from "./panel";
import { EmptyState, PanelLayout } from "./panel-layout";
import { arrowKeys, SearchResults, TrashView } from "./session-finds";
import { SessionRow } from "./session-row";

export function SessionsPanel({ controller, done }: PanelProps) {
	const { sessions, sessionId, ready } = controller.state;
	const [view, setView] = useState<"project" | "all" | "trash">("project");
	const [renaming, setRenaming] = useState(false);
	const renameButton = useRef<HTMLButtonElement>(null);
	const box = useRef<HTMLInputElement>(null);
	useEffect(() => void controller.refreshSessions(), [controller]); // the list as it is now (and what runs in it)
	const rows = view === "project" ? sessions.project : sessions.all;
	const titles = new Map(rows.map((row) => [row.sessionId, redact(controller.rowTitle(row))]));
	const nodes = sessionNodes(rows, sessionId);
	const byPath = new Map(rows.map((row) => [row.path, row]));
	const count = new Map<string, number>();
	for (const { row } of nodes) count.set(titles.get(row.sessionId)!, (count.get(titles.get(row.sessionId)!) ?? 0) + 1);
	const endRename = () => {
		setRenaming(false);
		requestAnimationFrame(() => renameButton.current?.focus());
	};
	// Done at once (the box takes the focus, the drawer closes): what is typed while the session opens goes with it.
	const open = (row: SessionSummary) => {
		done();
		if (row.sessionId !== sessionId) void controller.switchSession(row);
	};
	const searching = controller.search.query.trim() !== "";
	const choose = (next: typeof view) => {
		setView(next);
		if (next === "trash") void controller.trash.load();
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
							done();
							void controller.newSession();
						}}
					>
						<Icon name="plus" />
						New session
					</button>
				</>
			}
		>
			{renaming && <RenameForm initial={renameStart(controller.state.session?.sessionName, redact(controller.title()))} onSave={(name) => controller.rename(name)} onEnd={endRename} />}
			<input
				ref={box}
				type="search"
				class="session-search"
				aria-label="Search sessions: titles and messages of every project"
				aria-controls="session-hits"
				placeholder="Search titles and messages"
				value={controller.search.query}
				onInput={(e) => controller.search.set((e.target as HTMLInputElement).value)}
				onKeyDown={(e) => {
					const first = document.querySelector<HTMLButtonElement>("#session-hits button.session-open");
					if (e.key === "Enter" && first) first.click();
					else if (e.key === "ArrowDown" && first) {
						e.preventDefault();
						first.focus();
					} else if (e.key === "Escape" && searching) {
						e.preventDefault(); // Esc empties the search only: the drawer stays open
						e.stopPropagation();
						controller.search.set("");
					}
				}}
			/>
			{searching ? (
				<SearchResults controller={controller} onOpen={done} box={box.current} />
			) : (
				<>
					<div class="segmented" role="group" aria-label="Which sessions">
						<button type="button" aria-pressed={view === "project"} onClick={() => choose("project")}>
							This project
						</button>
						<button type="button" aria-pressed={view === "all"} onClick={() => choose("all")}>
							All projects
						</button>
						<button type="button" aria-pressed={view === "trash"} onClick={() => choose("trash")}>
							Trash
						</button>
					</div>
					{view === "trash" ? (
						<TrashView controller={controller} />
					) : nodes.length === 0 ? (
						<EmptyState title="No sessions yet">
							<span>Sessions are recorded from their first message.</span>
						</EmptyState>
					) : (
						<ul class="session-list" onKeyDown={(e) => arrowKeys(e)}>
							{nodes.map(({ row, children }) => {
								const title = titles.get(row.sessionId)!;
								const parent = row.parentSession ? byPath.get(row.parentSession) : undefined;
								return (
									<SessionRow
										key={row.sessionId}
										controller={controller}
										row={row}
										title={title}
										parentTitle={row.parentSession ? (parent ? titles.get(parent.sessionId) : "another session") : undefined}
										showId={count.get(title)! > 1}
										showCwd={view === "all"}
										children={children.map((child) => ({ row: child, title: titles.get(child.sessionId)! }))}
										onOpen={open}
									/>
								);
							})}
						</ul>
					)}
				</>
			)}
		</PanelLayout>
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
