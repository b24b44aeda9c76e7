/**
 * What the controller gives every panel's state (web/src/state/*-state.ts), one object for all of them: the
 * page's one client, for commands and for the events the state follows itself (`on`, `onEvent`, `onResync`);
 * the session the page shows; a re-render (at once for a click's busy state); error toasts; the screen
 * reader's live region. Each state takes `(context, ...its own extra arguments)`, subscribes in its constructor,
 * and never polls. Also `SessionSnapshots`, the per-session value such a state loads once and then keeps current
 * from events alone.
 */
import { type CommandName, type CommandParams, type CommandResult, type SkiffClient, SkiffCommandError } from "../../../src/client/index.js";

export interface PanelContext {
	/** The page's one connection: commands, and the events (and resync notices) a state follows itself. */
	readonly client: SkiffClient;
	/** The session the page shows now (undefined until the first bind). */
	sessionId(): string | undefined;
	/**
	 * Something shown changed: re-render (coalesced to one per animation frame). `now` for what a click started
	 * (its busy state): rendered with the click, so it always shows at once that it was taken.
	 */
	changed(now?: boolean): void;
	/** An error toast at the top of the main column. */
	toast(text: string): void;
	/** Reads a sentence out in the polite live region. */
	announce(text: string): void;
}

/** A command's failure as a person reads it (the service's sentence, never a stack). */
export function failureText(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/**
 * Runs a command for a panel (for `sessionId`; the primary session without one); resolves `{data}`, or
 * undefined when it failed, which is toasted (`<what> failed: <why>`) unless `quiet` says the failure is
 * expected (then it only resolves undefined).
 */
export async function runCommand<K extends CommandName>(
	context: PanelContext,
	what: string,
	type: K,
	params: CommandParams<K>,
	sessionId: string | undefined,
	quiet?: (error: unknown) => boolean,
): Promise<{ data: CommandResult<K> } | undefined> {
	try {
		return { data: await context.client.call(type, params, { sessionId }) };
	} catch (error) {
		if (!quiet?.(error)) context.toast(`${what} failed: ${failureText(error)}`);
		return undefined;
	}
}

/** A session's value as a panel shows it: loading, loaded, or the reason it could not be read. */
export type Snapshot<T> = { state: "loading" } | { state: "loaded"; value: T } | { state: "failed"; error: string };

/** Loads repeated at most this often when events keep overtaking them (then the last answer stands). */
const MAX_LOAD_ATTEMPTS = 4;

/**
 * Per-session values loaded on demand (`get` starts the load, once) and kept current by events (`update`, or
 * `refresh` for events that only say it changed). A load that an event of the same session overtook is
 * repeated: its answer may predate the event. A
 * session's value is forgotten when the client could not replay its missed events (resync) and when the
 * session unloads, so the next `get` loads it anew. The page never polls.
 */
export class SessionSnapshots<T> {
	private readonly values = new Map<string, Snapshot<T>>();
	/** Events seen per session, to tell whether one arrived while a load was on its way. */
	private readonly seen = new Map<string, number>();
	/** The latest load per session: an older one's answer is dropped. */
	private readonly loads = new Map<string, number>();

	constructor(
		private readonly context: PanelContext,
		private readonly load: (sessionId: string) => Promise<T>,
		/** Called when a session's value is forgotten (to drop what hangs off it). */
		private readonly onForget?: (sessionId: string) => void,
	) {
		context.client.onResync(({ sessionId }) => this.forget(sessionId));
		context.client.on("session_unloaded", (event) => this.forget(event.sessionId));
	}

	/** The session's value; the first call (and the first after it was forgotten) starts loading it. */
	get(sessionId: string): Snapshot<T> {
		const known = this.values.get(sessionId);
		if (known) return known;
		const loading: Snapshot<T> = { state: "loading" };
		this.values.set(sessionId, loading);
		void this.fetch(sessionId);
		return loading;
	}

	/** The loaded value, if any (does not start a load). */
	peek(sessionId: string): T | undefined {
		const known = this.values.get(sessionId);
		return known?.state === "loaded" ? known.value : undefined;
	}

	/**
	 * Applies an event: `apply` maps the loaded value to the new one (a whole-state event may ignore it). Before
	 * the value is loaded the event only marks the pending load as overtaken.
	 */
	update(sessionId: string, apply: (value: T) => T): void {
		this.seen.set(sessionId, (this.seen.get(sessionId) ?? 0) + 1);
		const known = this.values.get(sessionId);
		if (known?.state !== "loaded") return;
		this.values.set(sessionId, { state: "loaded", value: apply(known.value) });
		this.context.changed();
	}

	/**
	 * Reads a loaded value again, showing the one it has meanwhile (for values an event says changed without
	 * carrying them). Does nothing before the value is first asked for.
	 */
	refresh(sessionId: string): void {
		this.seen.set(sessionId, (this.seen.get(sessionId) ?? 0) + 1);
		if (this.values.get(sessionId)?.state === "loaded") void this.fetch(sessionId);
	}

	/** Forgets the session's value: the next `get` loads it again (also the way to retry a failed load). */
	forget(sessionId: string): void {
		this.values.delete(sessionId);
		this.loads.set(sessionId, (this.loads.get(sessionId) ?? 0) + 1);
		this.onForget?.(sessionId);
		this.context.changed();
	}

	private async fetch(sessionId: string): Promise<void> {
		const load = (this.loads.get(sessionId) ?? 0) + 1;
		this.loads.set(sessionId, load);
		let outcome: Snapshot<T> = { state: "failed", error: "not loaded" };
		for (let attempt = 1; attempt <= MAX_LOAD_ATTEMPTS; attempt++) {
			const before = this.seen.get(sessionId) ?? 0;
			try {
				outcome = { state: "loaded", value: await this.load(sessionId) };
			} catch (error) {
				const code = error instanceof SkiffCommandError ? error.code : undefined;
				// Not connected: nothing to show yet; the next render after the rebind asks again.
				if (code === "not_connected" || code === "connection_lost") {
					if (this.loads.get(sessionId) === load && this.values.get(sessionId)?.state === "loading") this.values.delete(sessionId);
					return;
				}
				outcome = { state: "failed", error: failureText(error) };
				break;
			}
			if ((this.seen.get(sessionId) ?? 0) === before) break;
		}
		if (this.loads.get(sessionId) !== load) return; // forgotten, or loaded again, meanwhile
		this.values.set(sessionId, outcome);
		this.context.changed();
	}
}
