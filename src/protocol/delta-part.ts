/**
 * The delta sub-event of a streaming `message_update`: what both kinds of merging join (the hub's, of one turn's
 * deltas, delta-run.ts; a queue's, for a client behind, coalesce.ts). Its own file so the hub and the
 * transport's merging share it without importing each other.
 */
import type { RuntimeEvent } from "../agent/types.js";

/** The streaming sub-events whose `delta` strings concatenate into the content block's text. */
const MERGEABLE_DELTAS = new Set(["text_delta", "thinking_delta", "toolcall_delta"]);

export interface DeltaPart {
	type: string;
	contentIndex: unknown;
	delta: string;
}

/** The delta sub-event of an event that may be merged with its neighbours, else undefined. */
export function deltaPart(event: RuntimeEvent): DeltaPart | undefined {
	if (event.type !== "message_update") return undefined;
	const part = event.assistantMessageEvent as Partial<DeltaPart> | undefined;
	if (typeof part !== "object" || part === null) return undefined;
	if (typeof part.type !== "string" || !MERGEABLE_DELTAS.has(part.type) || typeof part.delta !== "string") return undefined;
	return part as DeltaPart;
}
