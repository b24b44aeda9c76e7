/**
 * Ctrl/Cmd+K: every session of a user (not those of jobs and workflows, nor an unused empty one), newest first, filtered by what is typed (title, folder or id),
 * then the sessions whose messages hold it (the service's search, once typing pauses: each with the snippet of the
 * match), and the panels (by name or group: typed words that match one list it first; with nothing typed they come after
 * the sessions); arrows choose, Enter opens. A combobox with a listbox, so screen readers follow the active option.
 */
import { useEffect, useState } from "preact/hooks";
import type { SessionSummary } from "../../../src/client/index.js";
import type { Controller } from "../state/controller";
import { redact } from "../render/redact";
import { liveLabel } from "../state/session-live";
import { sessionNodes } from "../state/session-rows";
import { activeTime, relativeTime, sessionTitle, shortFolder } from "../state/session-title";
import { Dialog } from "./dialog";
import { Icon } from "./icons";
import { Marked } from "./panels/session-finds";
import { PANEL_GROUPS } from "./panels/panel";
import { PANELS } from "./panels/registry";

/** A session as listed (a search's hit is one the list may not have: its own fields). */
type Row = Omit<SessionSummary, "primary" | "recorded">;
type Option = { kind: "session"; row: Row; title: string; snippet?: string } | { kind: "panel"; id: string; title: string; group: string };

/** Every panel as an option, with its group's name (what the rail shows as its place). */
const PANEL_OPTIONS: Option[] = PANELS.map((p) => ({ kind: "panel", id: p.id, title: p.label, group: PANEL_GROUPS.find((g) => g.id === p.group)!.label }));

/** Options listed at most (typing narrows the rest down). */
const MAX_OPTIONS = 50;

export function SessionSwitcher({ controller, onOpenPanel, onClose }: { controller: Controller; onOpenPanel(id: string): void; onClose(): void }) {
	const [query, setQuery] = useState("");
	const [active, setActive] = useState(0);
	useEffect(() => void controller.refreshSessions(), [controller]); // the list as it is now
	const found = controller.findText;
	useEffect(() => () => found.set(""), [found]); // the next opening starts empty
	const { sessions, sessionId } = controller.state;
	const words = query.toLowerCase().split(/\s+/).filter(Boolean);
	// A user's sessions (those of jobs and workflows are under them in the Sessions panel), without unused empty ones.
	const sessionOptions: Array<Option & { kind: "session" }> = sessionNodes(sessions.all, sessionId)
		.map(({ row }) => ({ kind: "session" as const, row, title: redact(controller.rowTitle(row)) }))
		.filter(({ row, title }) => words.every((w) => `${title} ${row.cwd} ${row.sessionId}`.toLowerCase().includes(w)))
		.slice(0, MAX_OPTIONS);
	// Then the sessions only their messages match (the search's hits are for the text typed: older ones are dropped).
	const listed = new Set(sessionOptions.map((o) => o.row.sessionId));
	const result = words.length ? found.result : undefined;
	for (const { session, snippet, matchedIn } of result?.state === "done" ? result.hits : []) {
		const row = { ...session, loaded: false };
		if (!listed.has(row.sessionId)) sessionOptions.push({ kind: "session", row, title: redact(sessionTitle(row.name, row.firstMessage)), snippet: matchedIn === "message" ? redact(snippet) : undefined });
	}
	const status =
		result?.state === "searching"
			? "Searching messages…"
			: result?.state === "failed"
				? `Messages could not be searched: ${result.error}`
				: result?.truncated
					? "More messages hold it: type more to narrow it down."
					: "";
	const panelOptions = PANEL_OPTIONS.filter((o) => o.kind === "panel" && words.every((w) => `${o.title} ${o.group} panel`.toLowerCase().includes(w)));
	const options = words.length ? [...panelOptions, ...sessionOptions] : [...sessionOptions, ...panelOptions];
	const chosen = Math.min(active, Math.max(0, options.length - 1));

	const open = (option: Option | undefined) => {
		if (!option) return;
		if (option.kind === "panel") onOpenPanel(option.id);
		else if (option.row.sessionId !== sessionId) void controller.switchSession(option.row);
		(document.querySelector("dialog.switcher") as HTMLDialogElement | null)?.close();
	};
	const onKeyDown = (event: KeyboardEvent) => {
		if (event.key === "ArrowDown" || event.key === "ArrowUp") {
			event.preventDefault();
			const step = event.key === "ArrowDown" ? 1 : -1;
			const next = (chosen + step + options.length) % Math.max(1, options.length);
			setActive(next);
			document.getElementById(`switch-option-${next}`)?.scrollIntoView({ block: "nearest" });
		} else if (event.key === "Enter") {
			event.preventDefault();
			open(options[chosen]);
		}
	};

	return (
		<Dialog id="switcher" class="switcher" title="Switch session or open a panel" onClose={onClose}>
			<div class="search">
				<input
					data-autofocus
					type="text"
					role="combobox"
					aria-label="Find a session or a panel"
					aria-expanded="true"
					aria-controls="switch-options"
					aria-autocomplete="list"
					aria-activedescendant={options.length ? `switch-option-${chosen}` : undefined}
					placeholder="Type to find a session or a panel…"
					value={query}
					onInput={(e) => {
						const { value } = e.target as HTMLInputElement;
						setQuery(value);
						setActive(0);
						found.set(value);
					}}
					onKeyDown={onKeyDown}
				/>
			</div>
			{options.length === 0 ? (
				!status && <p class="none">No session or panel matches.</p>
			) : (
				<ul role="listbox" id="switch-options" aria-label="Sessions and panels">
					{options.map((option, n) => (
						<li
							key={option.kind === "panel" ? `panel:${option.id}` : option.row.sessionId}
							id={`switch-option-${n}`}
							role="option"
							class={option.kind === "panel" ? "panel-option" : undefined}
							aria-selected={n === chosen}
							onClick={() => open(option)}
							onMouseMove={() => n !== chosen && setActive(n)}
						>
							{option.kind === "panel" ? (
								<>
									<span class="option-title">
										<Icon name={PANELS.find((p) => p.id === option.id)!.icon} />
										{option.title}
									</span>
									<span class="option-meta">Panel · {option.group}</span>
								</>
							) : (
								<>
									<span class="option-title">
										{option.title}
										{option.row.sessionId === sessionId ? " (current)" : ""}
									</span>
									{option.snippet && <Marked text={option.snippet} query={query.trim()} />}
									<span class="option-meta">
										{[liveLabel(controller.live.get(option.row.sessionId)), relativeTime(activeTime(option.row)), `${option.row.messageCount} messages`, shortFolder(option.row.cwd)].filter(Boolean).join(" · ")}
									</span>
								</>
							)}
						</li>
					))}
				</ul>
			)}
			<p class="found" role="status">
				{status}
			</p>
		</Dialog>
	);
}
