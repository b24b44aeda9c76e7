/**
 * The message box across a change of session (switched to, started, forked): the change takes a round trip,
 * while the box still shows the session it was asked from, and the user types on. What is typed meanwhile goes
 * with the session asked for, not into the old session's draft (where it vanished from view); a change that
 * fails leaves it where it was typed.
 */
import type { Drafts } from "./drafts.js";

export class BoxHandover {
	/** The changes asked for and not over yet, the session shown when the first was asked for and its draft then. */
	private pending: { from: string; kept: string; count: number } | undefined;

	constructor(private readonly drafts: Drafts) {}

	/** A change is asked for while `shown` is shown. */
	begin(shown: string): void {
		(this.pending ??= { from: shown, kept: this.drafts.get(shown), count: 0 }).count++;
	}

	/** A change asked for is over (its session shown, or refused); resolves whether every one is. */
	end(): boolean {
		return !--this.pending!.count;
	}

	/**
	 * The session whose draft the box holds, `shown` being the one shown: while a change is under way, the one
	 * shown when it was asked for. After it, `shown`, whose draft gets what was typed meanwhile (the first
	 * session's draft is as it was when the change was asked for). Asked for as the page renders, which makes
	 * the new box, so every keystroke into the old one is counted.
	 */
	box(shown: string): string {
		const change = this.pending;
		if (change?.count) return change.from;
		this.pending = undefined;
		if (change && change.from !== shown) this.drafts.move(change.from, change.kept, shown);
		return shown;
	}
}
