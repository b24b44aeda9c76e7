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
}

function readStored(storage: Pick<Storage, "getItem"> | undefined, key: string): Array<[string, string]> {
	try {
		const value: unknown = JSON.parse(storage?.getItem(key) ?? "[]");
		return Array.isArray(value) ? value.filter((e): e is [string, string] => Array.isArray(e) && typeof e[0] === "string" && typeof e[1] === "string") : [];
	} catch {
		return [];
	}
}
