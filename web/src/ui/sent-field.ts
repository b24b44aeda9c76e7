/**
 * Emptying a form field once what was sent from it is accepted. The answer comes a moment after the panel has
 * shown the change (its event arrives first), and by then the user may be typing the next entry: that text stays.
 */
import type { Dispatch, StateUpdater } from "preact/hooks";

export function clearIfUnchanged(set: Dispatch<StateUpdater<string>>, sent: string): void {
	set((current) => (current === sent ? "" : current));
}
