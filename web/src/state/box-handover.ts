/**
 * The message box across a change of session (switched to, started, forked): the change takes a round trip,
 * while the box still shows the session it was asked from, and the user types on. What is typed meanwhile goes
 * with the session asked for, not into the old session's draft (where it vanished from view); a change that
 * fails leaves it where it was typed.
 */
import type { Drafts } from "./drafts.js";

export class BoxHandover {
	/**
	 * The change under way: the session shown when the first of its changes was asked for, its draft then, and the
	 * last change asked for (0 once it is over).
	 */
	private pending: { from: string; kept: string; last: number } | undefined;
	private asked = 0;

	constructor(private readonly drafts: Drafts) {}

	/** A change is asked for while `shown` is shown; returns its number, for `end`. */
	begin(shown: string): number {
		return ((this.pending ??= { from: shown, kept: this.drafts.get(shown), last: 0 }).last = ++this.asked);
	}

	/**
	 * Change `asked` is over (its session shown, or refused); returns whether that ends the change under way. Only
	 * the last one asked for does: the session it shows is the one the user asked for last, and one that never
	 * answers does not hold up the others.
	 */
	end(asked: number): boolean {
		if (this.pending?.last !== asked) return false;
		this.pending.last = 0;
		return true;
	}

	/**
	 * The session whose draft the box holds, `shown` being the one shown: while a change is under way, the one
	 * shown when it was asked for. After it, `shown`, whose draft gets what was typed meanwhile (the first
	 * session's draft is as it was when the change was asked for). Asked for as the page renders, which makes
	 * the new box, so every keystroke into the old one is counted.
	 */
	box(shown: string): string {
		const change = this.pending;
		if (change?.last) return change.from;
		this.pending = undefined;
		if (change && change.from !== shown) this.drafts.move(change.from, change.kept, shown);
		return shown;
	}
}
