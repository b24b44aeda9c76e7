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
import { deltaPart } from "./delta-part.js";

/**
 * A run is published at once when its text reaches this many characters (UTF-16 units), so a burst within one
 * turn still streams in pieces and what is held stays small; far below what one frame to a collaboration guest
 * holds (collab-socket.ts).
 */
export const MAX_RUN_CHARS = 16 * 1024;

/** How an offered event merges: consecutive ones with the same `key` form a run, which `merged` stands for. */
export interface Mergeable {
	key: string;
	/** The text the event adds. */
	delta: string;
	/** The one event standing for a run whose deltas joined to `text`. */
	merged(text: string): RuntimeEvent;
}

/**
 * How a streaming delta (`message_update` with a text, thinking or tool-call arguments delta) merges: with the
 * deltas of the same kind and content block (an absent index is 0). An event that carries such an update for
 * another stream on the session's hub (a side chat's tab) gives its `scope` and how to `wrap` the merged update.
 */
export function mergeableUpdate(update: RuntimeEvent, scope = "", wrap: (update: RuntimeEvent) => RuntimeEvent = (merged) => merged): Mergeable | undefined {
	const part = deltaPart(update);
	if (!part) return undefined;
	return {
		key: `${scope}\n${part.type}\n${String(part.contentIndex ?? 0)}`,
		delta: part.delta,
		merged: (text) => wrap({ ...update, assistantMessageEvent: { ...part, delta: text } }),
	};
}

export class DeltaRun {
	/** The deltas, joined once when the run is published (concatenating each would build a rope per delta). */
	private readonly pieces: string[];
	private chars: number;

	constructor(
		/** The run's first event, published as it is when nothing joins it. */
		private readonly first: RuntimeEvent,
		private readonly merge: Mergeable,
	) {
		this.pieces = [merge.delta];
		this.chars = merge.delta.length;
	}

	/** Whether `next` continues the run. */
	continues(next: Mergeable): boolean {
		return next.key === this.merge.key;
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
		return this.pieces.length === 1 ? this.first : this.merge.merged(this.pieces.join(""));
	}
}
