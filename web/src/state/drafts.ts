/**
 * What the user has typed but not sent, per box (a session's composer, a side chat tab's): switching sessions
 * keeps each draft and brings it back on return, so text is never sent where it was not written for, and a
 * reload of the page brings it back. Kept in sessionStorage (this browser tab only).
 */

export class Drafts {
	private readonly drafts: Map<string, string>;

	/** `key`: the sessionStorage item the drafts are kept in (one per kind of box). */
	constructor(
		private readonly key = "skiff.drafts",
		private readonly storage: Pick<Storage, "getItem" | "setItem"> | undefined = globalThis.sessionStorage,
	) {
		this.drafts = new Map(readStored(storage, key));
	}

	get(box: string): string {
		return this.drafts.get(box) ?? "";
	}

	set(box: string, text: string): void {
		if (text === this.get(box)) return;
		if (text) this.drafts.set(box, text);
		else this.drafts.delete(box);
		try {
			this.storage?.setItem(this.key, JSON.stringify([...this.drafts]));
		} catch {
			// Storage full or refused: the draft stays in memory for this page's life.
		}
	}

	/** Adds text after the draft (a blank line between), e.g. queued messages a stopped run did not take. */
	append(box: string, text: string): void {
		const draft = this.get(box).trimEnd();
		this.set(box, draft ? `${draft}\n\n${text}` : text);
	}

	/**
	 * Another box was asked for while `from`'s showed, whose draft was `kept` then: what was typed into it since
	 * goes after `to`'s draft, and `from`'s is `kept` again.
	 */
	move(from: string, kept: string, to: string): void {
		const typed = typedSince(kept, this.get(from));
		this.set(from, kept);
		if (typed) this.append(to, typed);
	}
}

/**
 * What `now` holds that `before` did not: the text between their common start and their common end (compared by
 * code point, so an emoji is never cut in two).
 */
export function typedSince(before: string, now: string): string {
	const [was, is] = [[...before], [...now]];
	let start = 0;
	while (start < was.length && was[start] === is[start]) start++;
	let end = 0;
	while (end < was.length - start && was.at(-1 - end) === is.at(-1 - end)) end++;
	return is.slice(start, is.length - end).join("");
}

function readStored(storage: Pick<Storage, "getItem"> | undefined, key: string): Array<[string, string]> {
	try {
		const value: unknown = JSON.parse(storage?.getItem(key) ?? "[]");
		return Array.isArray(value) ? value.filter((e): e is [string, string] => Array.isArray(e) && typeof e[0] === "string" && typeof e[1] === "string") : [];
	} catch {
		return [];
	}
}
