/**
 * What a panel's client state (tree-state.ts, settings-state.ts, maintenance-state.ts) gets from the controller:
 * commands over the page's one connection, a re-render, and the screen reader's live region. Each state object
 * also receives every applied event of a followed session (`onEvent`), so panels never poll.
 */
import type { CommandName, CommandParams, CommandResult, SkiffEvent } from "../../../src/client/index";

export interface PanelHost {
	/** Runs a command for a session (the primary without one); rejects with a SkiffCommandError. */
	call<K extends CommandName>(type: K, params: CommandParams<K>, sessionId?: string): Promise<CommandResult<K>>;
	/** Something a view shows changed: re-render (at most once per frame). */
	changed(): void;
	/** Reads a sentence out in the polite live region. */
	announce(text: string): void;
}

/** A panel's client state, fed every event the page applies (once each, in order). */
export interface PanelState {
	onEvent(event: SkiffEvent): void;
	/**
	 * After a reconnect the session's missed events could not be replayed (the service restarted, or they are no
	 * longer kept): what was read from it may be out of date.
	 */
	onResync(sessionId: string): void;
}

/** A failed command's message, for a panel to show where the action was taken. */
export function failure(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
