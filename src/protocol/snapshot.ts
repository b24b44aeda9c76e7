/** The backend snapshot every lifecycle command returns, read from the session itself (never a cache). */
import type { LoadedSession, RuntimeManager } from "../agent/runtime-manager.js";
import type { JsonObject, SessionState } from "../agent/types.js";

export interface SessionSnapshot {
	sessionId: string;
	state: SessionState;
	messages: JsonObject[];
}

export function snapshotOf(runtime: RuntimeManager, session: LoadedSession): SessionSnapshot {
	return { sessionId: session.id, state: runtime.state(session), messages: session.handle.messages() };
}
