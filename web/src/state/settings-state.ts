/**
 * The settings panel's client state: what settings_inspect says for the current session, one draft per scope
 * (global, project) opened at the first change, the problems of each key as the service states them, and the
 * outcome of applying a draft or trusting the project. settings_changed (from any client) reloads it.
 *
 * Commands run one after another (a chain), so a quick succession of edits never opens two drafts or applies
 * a draft before its last change has reached it.
 */
import type { ProjectTrustResult, SettingScope, SettingsApplyResult, SettingsDraft, SettingsInspection, SettingView } from "../../../src/client/index.js";
import { failureText, type PanelContext } from "./panel-context";

/** A change waiting in a draft: the value in the file now, and the value the draft writes (undefined: unset). */
export interface PendingChange {
	key: string;
	before: unknown;
	after: unknown;
	secret: boolean;
}

/** What the editor of a key shows in a scope. */
export interface ScopedValue {
	value: unknown;
	/** The scope's file sets the key (after the draft's changes). */
	set: boolean;
	/** The draft changes the key. */
	pending: boolean;
}

export type SettingsOutcome = { kind: "applied"; result: SettingsApplyResult } | { kind: "trust"; result: ProjectTrustResult };

export class SettingsState {
	inspection: SettingsInspection | undefined;
	/** The session the inspection is for. */
	sessionId: string | undefined;
	loading = false;
	/** Why the settings could not be read. */
	error: string | undefined;
	scope: SettingScope = "global";
	readonly drafts: Partial<Record<SettingScope, SettingsDraft>> = {};
	/** The service's objection to the last value given for a key (cleared by the next good one). */
	keyErrors: Record<string, string> = {};
	/** Why applying (or trusting) failed; `stale` when the file changed since the draft was opened. */
	actionError: { message: string; stale: boolean } | undefined;
	outcome: SettingsOutcome | undefined;
	/** An apply or trust under way. */
	working = false;
	private chain: Promise<unknown> = Promise.resolve();

	constructor(private readonly context: PanelContext) {
		context.client.on("settings_changed", (event) => {
			if (event.sessionId === this.sessionId) void this.load();
		});
		context.client.onResync(({ sessionId }) => {
			if (sessionId !== this.sessionId) return;
			// The service may have restarted, and drafts live in its memory: start again from the files.
			for (const scope of ["global", "project"] as const) delete this.drafts[scope];
			this.keyErrors = {};
			this.sessionId = undefined; // read again at the next ensure
		});
	}

	/** Reads the settings of `sessionId` unless they are loaded for it. */
	ensure(sessionId: string): void {
		if (this.sessionId === sessionId) return;
		// A project draft belongs to the project of the session it was opened for.
		const project = this.drafts.project;
		if (project && this.sessionId !== undefined) {
			delete this.drafts.project;
			void this.context.client.call("settings_cancel", { draftId: project.draftId }).catch(() => undefined);
		}
		this.sessionId = sessionId;
		this.outcome = undefined;
		void this.load();
	}

	async load(): Promise<void> {
		const sessionId = this.sessionId;
		if (!sessionId) return;
		this.loading = true;
		this.context.changed();
		try {
			const inspection = await this.context.client.call("settings_inspect", {}, { sessionId });
			if (sessionId !== this.sessionId) return;
			this.inspection = inspection;
			this.error = undefined;
			if (!inspection.projectTrusted && this.drafts.project) delete this.drafts.project; // the service dropped it
		} catch (error) {
			if (sessionId === this.sessionId) this.error = failureText(error);
		} finally {
			this.loading = false;
			this.context.changed();
		}
	}

	setScope(scope: SettingScope): void {
		this.scope = scope;
		this.actionError = undefined;
		this.context.changed();
	}

	/** Sets a key in the current scope's draft (opened at the first change). */
	set(key: string, value: unknown): Promise<boolean> {
		return this.change(key, (draftId) => this.context.client.call("settings_set", { draftId, key, value }, { sessionId: this.sessionId }));
	}

	/** Removes a key from the current scope's file (its value then comes from below). */
	reset(key: string): Promise<boolean> {
		return this.change(key, (draftId) => this.context.client.call("settings_reset", { draftId, key }, { sessionId: this.sessionId }));
	}

	/** Writes the current scope's draft; the outcome says what is live, what waits for new sessions or a restart. */
	apply(): Promise<void> {
		const scope = this.scope;
		return this.queue(async () => {
			const draft = this.drafts[scope];
			if (!draft) return;
			this.working = true;
			this.actionError = undefined;
			this.context.changed(true);
			try {
				const result = await this.context.client.call("settings_apply", { draftId: draft.draftId }, { sessionId: this.sessionId });
				delete this.drafts[scope];
				this.keyErrors = {};
				await this.load(); // the outcome shows with the values it speaks of
				this.outcome = { kind: "applied", result };
				this.context.announce(appliedSentence(result));
			} catch (error) {
				const message = failureText(error);
				this.actionError = { message, stale: /changed since/.test(message) };
			} finally {
				this.working = false;
				this.context.changed();
			}
		});
	}

	/** Drops the current scope's draft: nothing is written. */
	discard(): Promise<void> {
		const scope = this.scope;
		return this.queue(async () => {
			const draft = this.drafts[scope];
			delete this.drafts[scope];
			this.keyErrors = {};
			this.actionError = undefined;
			this.context.changed();
			if (draft) await this.context.client.call("settings_cancel", { draftId: draft.draftId }, { sessionId: this.sessionId }).catch(() => undefined); // an expired draft is gone anyway
		});
	}

	/** Trusts the session's project (its settings file then counts), or stops trusting it: always explicit. */
	trust(trusted: boolean): Promise<void> {
		return this.queue(async () => {
			this.working = true;
			this.actionError = undefined;
			this.context.changed(true);
			try {
				const result = await this.context.client.call("project_trust", { trusted }, { sessionId: this.sessionId });
				if (!trusted) delete this.drafts.project;
				await this.load();
				this.outcome = { kind: "trust", result };
				this.context.announce(trusted ? "The project is trusted: its settings count." : "The project is no longer trusted: its settings are ignored.");
			} catch (error) {
				this.actionError = { message: failureText(error), stale: false };
			} finally {
				this.working = false;
				this.context.changed();
			}
		});
	}

	/** The current scope's pending changes, in catalog order. */
	pending(): PendingChange[] {
		const draft = this.drafts[this.scope];
		if (!draft || !this.inspection) return [];
		return this.inspection.values
			.filter((view) => draft.changed.includes(view.key))
			.map((view) => ({ key: view.key, before: fileValue(view, this.scope), after: draft.values[view.key], secret: view.secret }));
	}

	/** What a key's editor shows in the current scope: the draft's value, else the file's, else what it inherits. */
	valueOf(view: SettingView): ScopedValue {
		const draft = this.drafts[this.scope];
		if (draft?.changed.includes(view.key)) {
			const set = Object.hasOwn(draft.values, view.key);
			return { value: set ? draft.values[view.key] : inherited(view, this.scope), set, pending: true };
		}
		const value = fileValue(view, this.scope);
		return value === undefined ? { value: inherited(view, this.scope), set: false, pending: false } : { value, set: true, pending: false };
	}

	private change(key: string, command: (draftId: string) => Promise<SettingsDraft>): Promise<boolean> {
		const scope = this.scope;
		return this.queue(async () => {
			this.outcome = undefined;
			this.actionError = undefined;
			try {
				let draft = this.drafts[scope];
				if (!draft) draft = this.drafts[scope] = await this.context.client.call("settings_open_draft", { scope }, { sessionId: this.sessionId });
				this.drafts[scope] = await command(draft.draftId);
				delete this.keyErrors[key];
				return true;
			} catch (error) {
				this.keyErrors = { ...this.keyErrors, [key]: failureText(error) };
				return false;
			} finally {
				this.context.changed();
			}
		});
	}

	private queue<T>(operation: () => Promise<T>): Promise<T> {
		const next = this.chain.then(operation, operation);
		this.chain = next.catch(() => undefined);
		return next;
	}
}

/** What a scope's file holds for a key (undefined: unset). */
function fileValue(view: SettingView, scope: SettingScope): unknown {
	return scope === "global" ? view.globalValue : view.projectValue;
}

/** The value a key has when the scope's file does not set it: the global file's (for a project) or the default. */
function inherited(view: SettingView, scope: SettingScope): unknown {
	return scope === "project" && view.globalValue !== undefined ? view.globalValue : view.default;
}

/** One sentence about an applied draft, for the live region. */
export function appliedSentence(result: SettingsApplyResult): string {
	if (result.keys.length === 0) return "Nothing changed: the file already held these values.";
	const parts = [
		result.appliedLive.length ? `live now: ${result.appliedLive.join(", ")}` : "",
		result.newSessions.length ? `in new sessions: ${result.newSessions.join(", ")}` : "",
		result.restartRequired.length ? `after a restart: ${result.restartRequired.join(", ")}` : "",
	].filter(Boolean);
	return `Settings saved; ${parts.join("; ")}.`;
}
