/**
 * What the user has typed but not sent, per session: switching sessions keeps each draft and brings it back on
 * return, so text is never sent to a session it was not written for. Kept in sessionStorage (this tab only).
 */

const DRAFTS_KEY = "skiff.drafts";

export class Drafts {
	private readonly drafts: Map<string, string>;

	constructor(private readonly storage: Pick<Storage, "getItem" | "setItem"> | undefined = globalThis.sessionStorage) {
		this.drafts = new Map(readStored(storage));
	}

	get(sessionId: string): string {
		return this.drafts.get(sessionId) ?? "";
	}

	set(sessionId: string, text: string): void {
		if (text === this.get(sessionId)) return;
		if (text) this.drafts.set(sessionId, text);
		else this.drafts.delete(sessionId);
		this.storage?.setItem(DRAFTS_KEY, JSON.stringify([...this.drafts]));
	}

	/** Adds text after the draft (a blank line between), e.g. queued messages a stopped run did not take. */
	append(sessionId: string, text: string): void {
		const draft = this.get(sessionId).trimEnd();
		this.set(sessionId, draft ? `${draft}\n\n${text}` : text);
	}
}

function readStored(storage: Pick<Storage, "getItem"> | undefined): Array<[string, string]> {
	try {
		const value: unknown = JSON.parse(storage?.getItem(DRAFTS_KEY) ?? "[]");
		return Array.isArray(value) ? value.filter((e): e is [string, string] => Array.isArray(e) && typeof e[0] === "string" && typeof e[1] === "string") : [];
	} catch {
		return [];
	}
}
