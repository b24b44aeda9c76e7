/**
 * Coalescing of streaming deltas for a client that is behind: consecutive `message_update` deltas of one
 * content block become one event whose `delta` is their concatenation, so a slow client gets fewer, larger
 * deltas and never loses text. The merged event keeps the `seq` of the last event merged, so seq stays
 * increasing for that client but may skip (docs/protocol.md, "Slow clients").
 */
import { type DeltaPart, deltaPart } from "./delta-part.js";
import type { PublishedEvent } from "./event-hub.js";

export { type DeltaPart, deltaPart };

/** An event as it goes on the wire: `{type, sessionId, seq, ...}`. */
export type WireEvent = PublishedEvent["event"];

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
