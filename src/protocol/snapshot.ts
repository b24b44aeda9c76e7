/** A session's state on the wire, and the backend snapshot every lifecycle command returns (read from the session, never a cache). */
import type { Static } from "typebox";
import type { LoadedSession } from "../agent/runtime-manager.js";
import type { CommandContext, ProtocolServices } from "./context.js";
import type { MessageSchema } from "./schemas/messages.js";
import type { SessionSnapshotSchema, SessionStateSchema } from "./schemas/session.js";
import { PROTOCOL_VERSION } from "./version.js";
import { transcriptMessages } from "./wire-images.js";

export type WireSessionState = Static<typeof SessionStateSchema>;
export type SessionSnapshot = Static<typeof SessionSnapshotSchema>;
export type Message = Static<typeof MessageSchema>;

/**
 * The session's transcript as pi holds it. The adapter hands pi's message objects over as they are; the
 * contract test checks them against MessageSchema, which is why this one place may treat them as Messages. Their
 * images are bounded on the way out (wire-images.ts).
 */
export function messagesOf(session: LoadedSession): Message[] {
	return transcriptMessages(session.handle.messages() as unknown as Message[]);
}

/** The assistant message being streamed right now (see messagesOf). */
export function streamingOf(session: LoadedSession): Message | undefined {
	return session.handle.streamingMessage() as unknown as Message | undefined;
}

/** What `get_state` reports: the runtime's state of the session and where its event stream stands. */
export function wireStateOf(services: ProtocolServices, session: LoadedSession): WireSessionState {
	return {
		...services.runtime.state(session),
		lastSeq: services.streams.hub(session.id).seq,
		epoch: services.streams.epoch,
		protocolVersion: PROTOCOL_VERSION,
	};
}

export function snapshotOf(services: ProtocolServices, session: LoadedSession): SessionSnapshot {
	return { sessionId: session.id, state: wireStateOf(services, session), messages: messagesOf(session) };
}

/** What a lifecycle command answers: the client now follows the session (and addresses it by default), and gets its snapshot. */
export function presentSession(context: CommandContext, session: LoadedSession): SessionSnapshot & { cancelled: false } {
	context.client.follow(session.id);
	context.client.adopt?.(session.id);
	return { ...snapshotOf(context, session), cancelled: false };
}
