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

export class DeltaRun {
	/** The deltas, joined once when the run is published (concatenating each would build a rope per delta). */
	private readonly pieces: string[];
	private chars: number;

	constructor(
		/** The run's first event: the merged event is it with the joined text. */
		private readonly first: RuntimeEvent,
		private readonly part: DeltaPart,
	) {
		this.pieces = [part.delta];
		this.chars = part.delta.length;
	}

	/** Whether `part` continues the run: a delta of the same kind and the same content block (absent index is 0). */
	continues(part: DeltaPart): boolean {
		return part.type === this.part.type && (part.contentIndex ?? 0) === (this.part.contentIndex ?? 0);
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
		return { ...this.first, assistantMessageEvent: { ...(this.first.assistantMessageEvent as object), delta: this.pieces.join("") } };
	}
}
