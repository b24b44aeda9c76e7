/**
 * How several features make one session's features (the runtime takes one set per session), and where the
 * features that keep state in a session find it again when a command names the session.
 */
import type { FeatureSession, HiddenContext, SessionContribution, SessionFeatures } from "../agent/types.js";
import { CodedError } from "../shared/errors.js";

/** One set of tools, active tools, turn-start contexts (in order) and bindings made of several features'. */
export function combineSessionFeatures(parts: SessionFeatures[]): SessionFeatures {
	const dynamic = parts.flatMap((part) => (part.dynamicTools ? [part.dynamicTools] : []));
	return {
		tools: parts.flatMap((part) => part.tools),
		...(dynamic.length > 0 ? { dynamicTools: { current: () => dynamic.flatMap((source) => source.current()) } } : {}),
		activeToolNames: () => parts.flatMap((part) => part.activeToolNames()),
		contextForPrompt: async (prompt, signal) => {
			// Context is advisory: one feature failing leaves the others' in place.
			const found = await Promise.all(parts.map((part) => part.contextForPrompt(prompt, signal).catch(() => undefined)));
			return found.flatMap((context): HiddenContext[] => (context === undefined ? [] : Array.isArray(context) ? context : [context]));
		},
		bind: (session, how) => {
			for (const part of parts) part.bind?.(session, how);
		},
		beforeToolCall: async (call) => {
			for (const part of parts) await part.beforeToolCall?.(call).catch(() => undefined);
		},
		toolResultDetails: async (call) => {
			let details: Record<string, unknown> | undefined;
			for (const part of parts) {
				const added = await part.toolResultDetails?.(call).catch(() => undefined);
				if (added) details = { ...details, ...added };
			}
			return details;
		},
	};
}

/** A feature's state in each loaded session, by session id; a closed session's state is forgotten. */
export class SessionStates<T> {
	private readonly states = new Map<string, T>();

	/** `what` names the feature in errors ("todo plan", "goal"). */
	constructor(private readonly what: string) {}

	/** Remembers the state of a session now loaded (after the runtime made sure it is the only one with its id). */
	attach(sessionId: string, state: T, session: FeatureSession | undefined): void {
		this.states.set(sessionId, state);
		session?.onClose(() => {
			if (this.states.get(sessionId) === state) this.states.delete(sessionId);
		});
	}

	/** The state of a loaded session; throws `unavailable` when it has none (it was opened without features). */
	get(sessionId: string): T {
		const state = this.states.get(sessionId);
		if (state === undefined) throw new CodedError("unavailable", `Session ${sessionId} has no ${this.what} (it was opened without features)`);
		return state;
	}

	/** How many sessions have state (for tests of the bound). */
	get size(): number {
		return this.states.size;
	}
}

/** A session's own state that is also its features (todo plan, goal), and the session it is bound to once open. */
export interface SessionState extends SessionFeatures {
	readonly link: FeatureSession | undefined;
}

/**
 * A feature whose state lives in each session (the todo plan, the goal): made for a session about to open,
 * found again by the session's id once it is loaded, forgotten when it closes.
 */
export class PerSessionService<T extends SessionState> {
	private readonly sessions: SessionStates<T>;

	/** `what` names the state in errors; `attached` runs once a state is filed under its session's id. */
	constructor(
		what: string,
		private readonly create: () => T,
		private readonly attached: (state: T) => void = () => undefined,
	) {
		this.sessions = new SessionStates<T>(what);
	}

	/** A new session's state and how to file it under the session's id: what the feature gives a session. */
	contribution(): SessionContribution {
		const state = this.create();
		return { features: state, attach: (sessionId) => this.attach(sessionId, state) };
	}

	/** The session is loaded under this id: commands naming it reach its state. */
	attach(sessionId: string, state: T): void {
		this.sessions.attach(sessionId, state, state.link);
		this.attached(state);
	}

	/** The state of a loaded session; throws `unavailable` when it has none. */
	of(sessionId: string): T {
		return this.sessions.get(sessionId);
	}
}
