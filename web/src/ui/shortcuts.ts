/**
 * The page's keyboard shortcuts: the list the `?` dialog shows, and the document-level handler for the ones
 * that work anywhere. Keys typed into a field stay text, except the chorded ones (Ctrl/Cmd+K, Ctrl/Cmd+/).
 */
import { useEffect } from "preact/hooks";
import { focusComposer, typingInField } from "./focus";

const MOD = /Mac|iPhone|iPad/.test(navigator.platform) ? "⌘" : "Ctrl";

/** Each shortcut as keys to show and what it does. */
export const SHORTCUTS: ReadonlyArray<{ keys: string[]; what: string }> = [
	{ keys: ["Enter"], what: "Send the message (while the agent works: steer it)" },
	{ keys: ["Shift", "Enter"], what: "New line" },
	{ keys: ["Esc"], what: "Close the / or @ list, else stop the run (in the message box); close a dialog or the panel drawer" },
	{ keys: [MOD, "K"], what: "Switch session or open a panel by name: type to filter, Enter to open" },
	{ keys: ["↑ ↓ Home End"], what: "In the panel rail: the previous, next, first or last panel" },
	{ keys: ["/"], what: "Go to the message box" },
	{ keys: ["?"], what: "Show these shortcuts (also " + MOD + "+/)" },
];

export interface ShortcutActions {
	openShortcuts(): void;
	openSwitcher(): void;
	/** Esc outside a dialog: closes the drawer if open; returns whether it did. */
	escape(): boolean;
}

export function useShortcuts(actions: ShortcutActions): void {
	useEffect(() => {
		const onKey = (event: KeyboardEvent) => {
			if (event.defaultPrevented || event.isComposing || document.querySelector("dialog[open]")) return;
			const mod = event.ctrlKey || event.metaKey;
			const key = event.key.toLowerCase();
			if (mod && !event.altKey && key === "k") {
				event.preventDefault();
				actions.openSwitcher();
			} else if (mod && key === "/") {
				event.preventDefault();
				actions.openShortcuts();
			} else if (event.key === "Escape") {
				if (actions.escape()) event.preventDefault();
			} else if (!mod && !event.altKey && !typingInField(event.target)) {
				if (event.key === "?") {
					event.preventDefault();
					actions.openShortcuts();
				} else if (event.key === "/") {
					event.preventDefault();
					focusComposer();
				}
			}
		};
		document.addEventListener("keydown", onKey);
		return () => document.removeEventListener("keydown", onKey);
	}, [actions]);
}
