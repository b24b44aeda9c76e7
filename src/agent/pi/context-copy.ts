/**
 * pi copies the whole conversation (structuredClone) before every model call, so that extensions' `context`
 * handlers may change it without touching the session's messages. Skiff loads only its own extensions, none of
 * which has such a handler, so that copy (its cost grows with the conversation: every turn, every tool round)
 * buys nothing; it is made only when some `context` handler exists.
 */
import type { AgentSession } from "@mariozechner/pi-coding-agent";

export function copyContextOnlyForHandlers(session: AgentSession): void {
	const agent = session.agent;
	const transform = agent.transformContext;
	if (!transform) return;
	agent.transformContext = (messages, signal) => (session.hasExtensionHandlers("context") ? transform(messages, signal) : Promise.resolve(messages));
}
