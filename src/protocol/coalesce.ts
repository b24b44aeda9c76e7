/**
 * Coalescing of streaming deltas for a client that is behind: consecutive `message_update` deltas of one
 * content block become one event whose `delta` is their concatenation, so a slow client gets fewer, larger
 * deltas and never loses text. The merged event keeps the `seq` of the last event merged, so seq stays
 * increasing for that client but may skip (docs/protocol.md, "Slow clients").
 */
import type { RuntimeEvent } from "../agent/types.js";
import type { PublishedEvent } from "./event-hub.js";

/** An event as it goes on the wire: `{type, sessionId, seq, ...}`. */
export type WireEvent = PublishedEvent["event"];

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

/** The text `event` would add when merged into an earlier event, or undefined when it never merges. */
export function mergeableDelta(event: WireEvent): string | undefined {
	return deltaPart(event)?.delta;
}

/**
 * Whether `later`, the event right after `earlier` in a client's queue, can be folded into it: both are
 * deltas of the same kind, session and content block.
 */
export function canCoalesce(earlier: WireEvent, later: WireEvent): boolean {
	const a = deltaPart(earlier);
	const b = deltaPart(later);
	return a !== undefined && b !== undefined && canCoalesceParts(earlier, a, later, b);
}

/** canCoalesce for two events whose delta parts are known (a queue keeps its last entry's). */
export function canCoalesceParts(earlier: WireEvent, a: DeltaPart, later: WireEvent, b: DeltaPart): boolean {
	return earlier.sessionId === later.sessionId && a.type === b.type && a.contentIndex === b.contentIndex && later.seq > earlier.seq;
}

/**
 * The one event standing for `earlier` then `later` (check canCoalesce first): `later` with the two deltas
 * concatenated. Example: deltas "Hel" (seq 4) and "lo" (seq 5) become "Hello" with seq 5.
 */
export function coalesce(earlier: WireEvent, later: WireEvent): WireEvent {
	return withDelta(later, deltaPart(earlier)!.delta + deltaPart(later)!.delta);
}

/** The event standing for a run of merged deltas: its last event (a mergeable delta) carrying the run's whole text. */
export function withDelta(last: WireEvent, delta: string): WireEvent {
	return { ...last, assistantMessageEvent: { ...deltaPart(last)!, delta } };
}
