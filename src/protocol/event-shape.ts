/**
 * Event shaping, done once per session before events are numbered and fanned out. pi's streaming events
 * carry the whole partial message again with every delta (quadratic bytes over a long reply); on the wire a
 * delta carries only what is new; the images of user messages and tool results are bounded (wire-images.ts). Everything else passes
 * through, `display: false` markers included.
 */
import type { RuntimeEvent } from "../agent/types.js";
import { eventMessage, eventToolResult } from "./wire-images.js";

export type EventShaper = (event: RuntimeEvent) => RuntimeEvent | undefined;

/** A shaper for one session (it remembers tool output already sent, to send only what is new). */
export function createEventShaper(): EventShaper {
	const toolOutputSent = new Map<string, string>();
	return (event) => {
		switch (event.type) {
			case "message_update":
				return { type: event.type, assistantMessageEvent: slimAssistantEvent(event.assistantMessageEvent) };
			case "tool_execution_update":
				return slimToolUpdate(event, toolOutputSent);
			case "tool_execution_end": {
				toolOutputSent.delete(String(event.toolCallId));
				const result = eventToolResult(event.result);
				return result === event.result ? event : { ...event, result };
			}
			case "turn_end":
				// The turn's messages were each sent in message_end already.
				return { type: event.type };
			case "message_start":
			case "message_end": {
				const message = eventMessage(event.message, event.type === "message_start");
				return message === event.message ? event : { ...event, message };
			}
			case "agent_end":
				return { type: event.type, messageCount: Array.isArray(event.messages) ? event.messages.length : 0 };
			default:
				return event;
		}
	};
}

/**
 * Streaming sub-events keep only what is new; a delta of block 0 leaves `contentIndex` out (absent means 0). A block's start carries no content (what pi's partial message
 * holds by the time the event is shaped may already include text the next deltas carry); a tool call's start
 * carries its id and name, which never change.
 */
function slimAssistantEvent(raw: unknown): Record<string, unknown> {
	const event = raw as Record<string, unknown>;
	const type = String(event.type);
	const { contentIndex } = event;
	// The most frequent frame on the wire: `contentIndex` 0 (the usual single text block) is left out.
	if (type.endsWith("_delta")) return contentIndex === 0 ? { type, delta: event.delta } : { type, contentIndex, delta: event.delta };
	if (type === "toolcall_start") {
		const block = (event.partial as { content?: Array<{ id?: unknown; name?: unknown }> } | undefined)?.content?.[contentIndex as number];
		return { type, contentIndex, id: block?.id, name: block?.name };
	}
	if (type.endsWith("_start")) return { type, contentIndex };
	const { partial: _partial, ...rest } = event;
	return rest;
}

/**
 * Tool progress is cumulative in pi (each update holds all output so far). When the new text extends what
 * was sent, only the extension goes out as `outputDelta`; otherwise (the tail was truncated) the full
 * `partialResult` is sent and becomes the new base.
 */
function slimToolUpdate(event: RuntimeEvent, sent: Map<string, string>): RuntimeEvent {
	const id = String(event.toolCallId);
	const partial = event.partialResult as { content?: Array<{ type: string; text?: string }> } | undefined;
	const blocks = partial?.content ?? [];
	const text = blocks.every((b) => b.type === "text") ? blocks.map((b) => b.text ?? "").join("") : undefined;
	const previous = sent.get(id);
	const base = { type: event.type, toolCallId: event.toolCallId, toolName: event.toolName };
	if (text !== undefined && previous !== undefined && text.startsWith(previous)) {
		sent.set(id, text);
		return { ...base, outputDelta: text.slice(previous.length) };
	}
	if (text !== undefined) sent.set(id, text);
	return { ...base, partialResult: event.partialResult };
}
