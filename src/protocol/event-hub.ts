/**
 * One session's outgoing event stream: numbers events with an increasing `seq`, serializes each once for all
 * listeners, and keeps a bounded replay window so a reconnecting client can catch up from a seq. Streaming
 * deltas `offer`ed within one turn of the event loop are merged before they are numbered (delta-run.ts).
 */
import type { RuntimeEvent } from "../agent/types.js";
import { DeltaRun, type Mergeable, unwrapped } from "./delta-run.js";
import { deltaPart } from "./delta-part.js";

/** Replay window per session: whichever bound is hit first drops the oldest events. */
export const REPLAY_MAX_EVENTS = 50_000;
export const REPLAY_MAX_BYTES = 8 * 1024 * 1024;

/** An event as published: the runtime event plus its session and sequence number. */
export interface PublishedEvent {
	readonly seq: number;
	readonly event: RuntimeEvent & { sessionId: string; seq: number };
	/** The event's JSON text, computed once and shared by every listener. */
	readonly json: string;
}

export type EventListener = (published: PublishedEvent) => void;

export interface ReplayLimits {
	maxEvents: number;
	maxBytes: number;
}

export class EventHub {
	private lastSeq: number;
	private buffer: PublishedEvent[] = [];
	private bufferStart = 0; // index of the oldest kept event in `buffer` (compacted lazily)
	private bufferBytes = 0;
	private readonly listeners = new Set<EventListener>();
	/** Deltas offered in this turn of the event loop, not published yet. */
	private run: DeltaRun | undefined;
	private flushScheduled = false;

	constructor(
		readonly sessionId: string,
		private readonly limits: ReplayLimits = { maxEvents: REPLAY_MAX_EVENTS, maxBytes: REPLAY_MAX_BYTES },
		startSeq = 0,
		/** Called when the last listener leaves. */
		private readonly onUnfollowed?: () => void,
	) {
		this.lastSeq = startSeq;
	}

	/** How many listeners follow this session now. */
	get listenerCount(): number {
		return this.listeners.size;
	}

	/**
	 * The seq of the newest event (0 before the first). Held deltas are published first: whoever reads the seq
	 * pairs it with the session as it is now (a snapshot's messages already hold their text), so every delta
	 * pi emitted so far must be numbered at or below it.
	 */
	get seq(): number {
		this.flush();
		return this.lastSeq;
	}

	/**
	 * Publishes `event`, except a streaming delta (text, thinking or tool-call arguments; `merge` says how an
	 * event that wraps one merges), which is held and merged with the deltas of the same content block offered
	 * after it, and published with them at the end of this turn of the event loop, at MAX_RUN_CHARS, or before
	 * any other event of the session, whichever comes first (delta-run.ts). A lone delta still goes out in the
	 * turn it came in.
	 */
	offer(event: RuntimeEvent, merge?: Mergeable): void {
		// A bare update is its own update, of the session's own stream: nothing is built for it per delta.
		const update = merge ? merge.update : event;
		const scope = merge ? merge.scope : "";
		const part = deltaPart(update);
		if (!part) {
			this.publish(event);
			return;
		}
		if (this.run?.continues(part, scope)) this.run.add(part.delta);
		else {
			this.flush();
			this.run = new DeltaRun(event, update, part, scope, merge ? merge.wrap : unwrapped);
		}
		if (this.run.full) this.flush();
		else if (!this.flushScheduled) {
			this.flushScheduled = true;
			setImmediate(this.flushAtTurnEnd);
		}
	}

	/** Publishes `event` now (after any held deltas, which came before it). */
	publish(event: RuntimeEvent): PublishedEvent {
		this.flush();
		return this.number(event);
	}

	private readonly flushAtTurnEnd = (): void => {
		this.flushScheduled = false;
		this.flush();
	};

	/** Publishes the held run of deltas, if any. */
	private flush(): void {
		const run = this.run;
		if (!run) return;
		this.run = undefined;
		this.number(run.event());
	}

	private number(event: RuntimeEvent): PublishedEvent {
		const seq = ++this.lastSeq;
		// sessionId and seq come right after type, so every event reads the same way on the wire.
		const { type, ...fields } = event;
		const stamped = { type, sessionId: this.sessionId, seq, ...fields } as PublishedEvent["event"];
		stamped.sessionId = this.sessionId; // a runtime event never overrides where it belongs or its place
		stamped.seq = seq;
		const published: PublishedEvent = { seq, event: stamped, json: JSON.stringify(stamped) };
		this.remember(published);
		for (const listener of this.listeners) deliver(listener, published);
		return published;
	}

	/**
	 * The events after `sinceSeq`, oldest first, or undefined when some of them are no longer kept (the
	 * caller must then reload the session snapshot).
	 */
	since(sinceSeq: number): PublishedEvent[] | undefined {
		this.flush();
		if (sinceSeq >= this.lastSeq) return [];
		const oldestKept = this.buffer.length > this.bufferStart ? this.buffer[this.bufferStart]!.seq : this.lastSeq + 1;
		if (sinceSeq + 1 < oldestKept) return undefined;
		return this.buffer.slice(this.bufferStart + (sinceSeq + 1 - oldestKept));
	}

	/** Follows the events published from now on (held deltas, which came before, are published first). */
	subscribe(listener: EventListener): () => void {
		this.flush();
		this.listeners.add(listener);
		return () => {
			if (this.listeners.delete(listener) && this.listeners.size === 0) this.onUnfollowed?.();
		};
	}

	/** Drops the replay window (the session was unloaded); the seq keeps counting when it comes back. */
	forgetReplay(): void {
		this.flush();
		this.buffer = [];
		this.bufferStart = 0;
		this.bufferBytes = 0;
	}

	private remember(published: PublishedEvent): void {
		this.buffer.push(published);
		this.bufferBytes += published.json.length;
		while (
			this.buffer.length - this.bufferStart > this.limits.maxEvents ||
			(this.bufferBytes > this.limits.maxBytes && this.buffer.length - this.bufferStart > 1)
		) {
			this.bufferBytes -= this.buffer[this.bufferStart]!.json.length;
			this.bufferStart++;
		}
		// Compact occasionally so dropping the oldest event stays O(1) amortized.
		if (this.bufferStart > 1024 && this.bufferStart * 2 > this.buffer.length) {
			this.buffer = this.buffer.slice(this.bufferStart);
			this.bufferStart = 0;
		}
	}
}

/**
 * Hands one event to one listener. A listener that throws must neither keep the event from the listeners after
 * it nor, when the event is a run of deltas flushed at the end of a turn (no caller on the stack to catch it),
 * bring the process down: its failure is reported, without the event's text, and the stream goes on.
 */
function deliver(listener: EventListener, published: PublishedEvent): void {
	try {
		listener(published);
	} catch (error) {
		const reason = error instanceof Error ? error.name : typeof error;
		process.stderr.write(`skiff: a follower of session ${published.event.sessionId} failed on event ${published.seq} (${reason}); the others still get it\n`);
	}
}
