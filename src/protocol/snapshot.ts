/** A session's state on the wire, and the backend snapshot every lifecycle command returns (read from the session, never a cache). */
import type { LoadedSession } from "../agent/runtime-manager.js";
import type { JsonObject, SessionState } from "../agent/types.js";
import type { CommandContext, ProtocolServices } from "./context.js";

/** What `get_state` reports: the runtime's state of the session and where its event stream stands. */
export interface WireSessionState extends SessionState {
	/** The seq of the newest event published for this session (0 before the first). */
	lastSeq: number;
	/** The event numbering's identity for this process (see `subscribe`). */
	epoch: string;
}

export interface SessionSnapshot {
	sessionId: string;
	state: WireSessionState;
	messages: JsonObject[];
}

export function wireStateOf(services: ProtocolServices, session: LoadedSession): WireSessionState {
	return { ...services.runtime.state(session), lastSeq: services.streams.hub(session.id).seq, epoch: services.streams.epoch };
}

export function snapshotOf(services: ProtocolServices, session: LoadedSession): SessionSnapshot {
	return { sessionId: session.id, state: wireStateOf(services, session), messages: session.handle.messages() };
}

/** What a lifecycle command answers: the client now follows the session, and gets its snapshot. */
export function presentSession(context: CommandContext, session: LoadedSession): SessionSnapshot {
	context.client.follow(session.id);
	return snapshotOf(context, session);
}
