/** The backend snapshot every lifecycle command returns, read from the session itself (never a cache). */
import type { LoadedSession, RuntimeManager } from "../agent/runtime-manager.js";
import type { JsonObject, SessionState } from "../agent/types.js";
import type { CommandContext } from "./context.js";

export interface SessionSnapshot {
	sessionId: string;
	state: SessionState;
	messages: JsonObject[];
}

export function snapshotOf(runtime: RuntimeManager, session: LoadedSession): SessionSnapshot {
	return { sessionId: session.id, state: runtime.state(session), messages: session.handle.messages() };
}

/** What a lifecycle command answers: the client now follows the session, and gets its snapshot. */
export function presentSession(context: CommandContext, session: LoadedSession): SessionSnapshot {
	context.client.follow(session.id);
	return snapshotOf(context.runtime, session);
}
