/**
 * Ctrl/Cmd+K: every session of a user (not those of jobs and workflows, nor an unused empty one), newest first, filtered by what is typed (title, folder or id),
 * and the panels (by name or group: typed words that match one list it first; with nothing typed they come after
 * the sessions); arrows choose, Enter opens. A combobox with a listbox, so screen readers follow the active option.
 */
import { useEffect, useState } from "preact/hooks";
import type { SessionSummary } from "../../../src/client/index.js";
import type { Controller } from "../state/controller";
import { redact } from "../render/redact";
import { liveLabel } from "../state/session-live";
import { sessionNodes } from "../state/session-rows";
import { activeTime, relativeTime, shortFolder } from "../state/session-title";
import { Dialog } from "./dialog";
import { Icon } from "./icons";
import { PANEL_GROUPS } from "./panels/panel";
import { PANELS } from "./panels/registry";

type Option = { kind: "session"; row: SessionSummary; title: string } | { kind: "panel"; id: string; title: string; group: string };

/** Every panel as an option, with its group's name (what the rail shows as its place). */
const PANEL_OPTIONS: Option[] = PANELS.map((p) => ({ kind: "panel", id: p.id, title: p.label, group: PANEL_GROUPS.find((g) => g.id === p.group)!.label }));

/** Options listed at most (typing narrows the rest down). */
const MAX_OPTIONS = 50;

export function SessionSwitcher({ controller, onOpenPanel, onClose }: { controller: Controller; onOpenPanel(id: string): void; onClose(): void }) {
	const [query, setQuery] = useState("");
	const [active, setActive] = useState(0);
	useEffect(() => void controller.refreshSessions(), [controller]); // the list as it is now
	const { sessions, sessionId } = controller.state;
	const words = query.toLowerCase().split(/\s+/).filter(Boolean);
	// A user's sessions (those of jobs and workflows are under them in the Sessions panel), without unused empty ones.
	const sessionOptions: Option[] = sessionNodes(sessions.all, sessionId)
		.map(({ row }) => ({ kind: "session" as const, row, title: redact(controller.rowTitle(row)) }))
		.filter(({ row, title }) => words.every((w) => `${title} ${row.cwd} ${row.sessionId}`.toLowerCase().includes(w)))
		.slice(0, MAX_OPTIONS);
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
						setQuery((e.target as HTMLInputElement).value);
						setActive(0);
					}}
					onKeyDown={onKeyDown}
				/>
			</div>
			{options.length === 0 ? (
				<p class="none">No session or panel matches.</p>
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
									<span class="option-meta">
										{[liveLabel(controller.live.get(option.row.sessionId)), relativeTime(activeTime(option.row)), `${option.row.messageCount} messages`, shortFolder(option.row.cwd)].filter(Boolean).join(" · ")}
									</span>
								</>
							)}
						</li>
					))}
				</ul>
			)}
		</Dialog>
	);
}
