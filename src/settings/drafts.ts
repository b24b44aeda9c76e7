/**
 * Drafts of settings changes, held in memory until applied or cancelled. They are few and short-lived: at
 * most MAX_DRAFTS (opening one more drops the least recently used), and one unused for DRAFT_IDLE_MS expires.
 */
import { randomUUID } from "node:crypto";
import { CodedError } from "../shared/errors.js";
import type { SettingScope } from "./definition.js";
import type { FileSnapshot } from "./settings-file.js";

/** Drafts held at once. */
export const MAX_DRAFTS = 32;
/** A draft unused for this long is dropped. */
export const DRAFT_IDLE_MS = 30 * 60_000;

export interface Draft {
	readonly id: string;
	readonly scope: SettingScope;
	/** The project folder of a project draft. */
	readonly folder?: string;
	/** The file as it was when the draft was opened: apply refuses when it has changed since. */
	readonly base: FileSnapshot;
	/** Pending changes by key, in the order made: a value, or undefined to remove the key from the file. */
	readonly changes: Map<string, unknown>;
	usedAt: number;
}

export class DraftStore {
	private readonly drafts = new Map<string, Draft>();

	constructor(private readonly now: () => number = Date.now) {}

	open(scope: SettingScope, base: FileSnapshot, folder?: string): Draft {
		this.expire();
		while (this.drafts.size >= MAX_DRAFTS) {
			const oldest = [...this.drafts.values()].sort((a, b) => a.usedAt - b.usedAt)[0]!;
			this.drafts.delete(oldest.id);
		}
		const draft: Draft = { id: randomUUID(), scope, folder, base, changes: new Map(), usedAt: this.now() };
		this.drafts.set(draft.id, draft);
		return draft;
	}

	/** The draft, marked as used; `not_found` when it never existed, was applied or cancelled, or expired. */
	get(id: string): Draft {
		this.expire();
		const draft = this.drafts.get(id);
		if (!draft) {
			throw new CodedError(
				"not_found",
				`Unknown settings draft ${id}: it was applied or cancelled, or expired (after ${DRAFT_IDLE_MS / 60_000} minutes unused, or when more than ${MAX_DRAFTS} were open); open a new one with settings_open_draft`,
			);
		}
		draft.usedAt = this.now();
		return draft;
	}

	delete(id: string): boolean {
		return this.drafts.delete(id);
	}

	private expire(): void {
		const now = this.now();
		for (const [id, draft] of this.drafts) if (now - draft.usedAt > DRAFT_IDLE_MS) this.drafts.delete(id);
	}
}
