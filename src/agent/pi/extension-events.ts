/**
 * pi hands every agent event to its extensions before its listeners. For a streaming update (a
 * `message_update`, one per delta of the model's stream; a tool's `tool_execution_update`) it builds an event
 * object and a context object of fifteen closures, and goes through two async functions, even when no extension
 * has a handler for that event: in a CPU profile of a 20,000-delta reply that was about a tenth of skiff's
 * time (the context alone 59 ms of 1.5 s). Skiff's own extensions have no such handler, so a streaming update
 * goes to the extensions only when one has a handler for it (asked at each event: a reload may add one). Every
 * other event goes as before: pi's handling of them keeps state of its own (the turn index, a message's
 * replacement at its end).
 */
import type { AgentSession } from "@mariozechner/pi-coding-agent";

/** Event types pi sends to extensions under the same name, with no other work done on the way. */
const STREAMING_EVENTS = new Set(["message_update", "tool_execution_update"]);

/** pi's own method, private in its types: every agent event passes through it on its way to the extensions. */
type ExtensionEmit = (event: { type: string }) => Promise<void> | undefined;

export function emitStreamingEventsOnlyToHandlers(session: AgentSession): void {
	const target = session as unknown as { _emitExtensionEvent?: ExtensionEmit };
	const emit = target._emitExtensionEvent;
	if (typeof emit !== "function") return; // another pi: leave its path alone
	target._emitExtensionEvent = (event) => (STREAMING_EVENTS.has(event.type) && !session.hasExtensionHandlers(event.type) ? undefined : emit.call(session, event));
}
