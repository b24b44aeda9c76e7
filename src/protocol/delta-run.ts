/**
 * Merging at the source: a run of streaming deltas of one content block that pi emitted within one turn of the
 * event loop, held by the session's hub (event-hub.ts) and published as ONE `message_update` whose `delta` is
 * their joined text. pi parses a whole read of the model's stream (hundreds of server-sent events when the
 * service reads behind a fast model) synchronously or in microtasks and emits one event per model token; a delta
 * event costs about 150 bytes on the wire and one `JSON.stringify`, one frame and one parse per follower, for a
 * character or two of text. Held until the end of the turn (or until MAX_RUN_CHARS), the run goes out as soon as
 * a lone delta would have, in one event numbered once and serialized once for every follower.
 *
 * Not to be confused with the transport's merging for a client that fell behind (coalesce.ts): that one merges
 * published events per client and makes its `seq` skip; this one happens before numbering, so every follower
 * gets the same events with consecutive seqs.
 */
import type { RuntimeEvent } from "../agent/types.js";
import type { DeltaPart } from "./delta-part.js";

/**
 * A run is published at once when its text reaches this many characters (UTF-16 units), so a burst within one
 * turn still streams in pieces and what is held stays small; far below what one frame to a collaboration guest
 * holds (collab-socket.ts).
 */
export const MAX_RUN_CHARS = 16 * 1024;

/**
 * How an event that wraps an update of another stream on the session's hub (a side chat's tab) merges: when the
 * update is a streaming delta, it joins only runs of the same `scope`, never the session's own (scope ""), and
 * the merged update is wrapped again by `wrap`; any other update's event is published as it is. A stream makes
 * its scope and wrap once, so nothing is built per delta but this object.
 */
export interface Mergeable {
	/** The update the event carries. */
	update: RuntimeEvent;
	/** Which stream the update belongs to: "" for the session's own, else e.g. `side_chat_event\n<tab>`. */
	scope: string;
	/** The event standing for a run of merged updates. */
	wrap(update: RuntimeEvent): RuntimeEvent;
}

/** The wrap of the session's own stream: none. */
export const unwrapped = (update: RuntimeEvent): RuntimeEvent => update;

/**
 * A run of held deltas. Whether the next delta joins it compares the delta's kind, content block and scope
 * with the run's own, as they are: a delta that joins allocates nothing but its place among the pieces (it is
 * offered once per model token, so building a key or a closure per delta would be most of its cost).
 */
export class DeltaRun {
	/** The deltas, joined once when the run is published (concatenating each would build a rope per delta). */
	private readonly pieces: string[];
	private chars: number;

	constructor(
		/** The run's first event, published as it is when nothing joins it. */
		private readonly first: RuntimeEvent,
		/** The first event's streaming update (the event itself, unless it wraps one) and its delta part. */
		private readonly update: RuntimeEvent,
		private readonly part: DeltaPart,
		private readonly scope: string,
		private readonly wrap: (update: RuntimeEvent) => RuntimeEvent,
	) {
		this.pieces = [part.delta];
		this.chars = part.delta.length;
	}

	/** Whether a delta `part` of `scope` continues the run: the same kind of delta, content block and stream. */
	continues(part: DeltaPart, scope: string): boolean {
		return part.type === this.part.type && (part.contentIndex ?? 0) === (this.part.contentIndex ?? 0) && scope === this.scope;
	}

	add(delta: string): void {
		this.pieces.push(delta);
		this.chars += delta.length;
	}

	/** The run is at its bound: publish it now. */
	get full(): boolean {
		return this.chars >= MAX_RUN_CHARS;
	}

	/** The one event standing for the run (the first event itself when nothing joined it). */
	event(): RuntimeEvent {
		if (this.pieces.length === 1) return this.first;
		return this.wrap({ ...this.update, assistantMessageEvent: { ...this.part, delta: this.pieces.join("") } });
	}
}
