/**
 * Ctrl/Cmd+K: every recorded session (this project's first), filtered by what is typed (title, folder or id);
 * arrows choose, Enter opens. A combobox with a listbox, so screen readers follow the active option.
 */
import { useEffect, useState } from "preact/hooks";
import type { SessionSummary } from "../../../src/client/index.js";
import type { Controller } from "../state/controller";
import { redact } from "../render/redact";
import { activeTime, relativeTime, shortFolder } from "../state/session-title";
import { Dialog } from "./dialog";

/** Options listed at most (typing narrows the rest down). */
const MAX_OPTIONS = 50;

export function SessionSwitcher({ controller, onClose }: { controller: Controller; onClose(): void }) {
	const [query, setQuery] = useState("");
	const [active, setActive] = useState(0);
	useEffect(() => void controller.refreshSessions(), [controller]); // the list as it is now
	const { sessions, sessionId } = controller.state;
	const rows = new Map<string, SessionSummary>();
	for (const row of [...sessions.project, ...sessions.all]) if (!rows.has(row.sessionId)) rows.set(row.sessionId, row);
	const words = query.toLowerCase().split(/\s+/).filter(Boolean);
	const options = [...rows.values()]
		.sort((a, b) => activeTime(b) - activeTime(a))
		.map((row) => ({ row, title: redact(controller.rowTitle(row)) }))
		.filter(({ row, title }) => words.every((w) => `${title} ${row.cwd} ${row.sessionId}`.toLowerCase().includes(w)))
		.slice(0, MAX_OPTIONS);
	const chosen = Math.min(active, Math.max(0, options.length - 1));

	const open = (row: SessionSummary | undefined) => {
		if (!row) return;
		if (row.sessionId !== sessionId) void controller.switchSession(row);
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
			open(options[chosen]?.row);
		}
	};

	return (
		<Dialog id="switcher" class="switcher" title="Switch session" onClose={onClose}>
			<div class="search">
				<input
					data-autofocus
					type="text"
					role="combobox"
					aria-label="Find a session"
					aria-expanded="true"
					aria-controls="switch-options"
					aria-autocomplete="list"
					aria-activedescendant={options.length ? `switch-option-${chosen}` : undefined}
					placeholder="Type to find a session…"
					value={query}
					onInput={(e) => {
						setQuery((e.target as HTMLInputElement).value);
						setActive(0);
					}}
					onKeyDown={onKeyDown}
				/>
			</div>
			{options.length === 0 ? (
				<p class="none">No session matches.</p>
			) : (
				<ul role="listbox" id="switch-options" aria-label="Sessions">
					{options.map(({ row, title }, n) => (
						<li key={row.sessionId} id={`switch-option-${n}`} role="option" aria-selected={n === chosen} onClick={() => open(row)} onMouseMove={() => n !== chosen && setActive(n)}>
							<span class="option-title">
								{title}
								{row.sessionId === sessionId ? " (current)" : ""}
							</span>
							<span class="option-meta">
								{relativeTime(activeTime(row))} · {row.messageCount} messages · {shortFolder(row.cwd)}
							</span>
						</li>
					))}
				</ul>
			)}
		</Dialog>
	);
}
