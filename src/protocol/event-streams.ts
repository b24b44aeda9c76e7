/**
 * The wire side of every session's events: each runtime signal is shaped (deltas only), numbered per
 * session, serialized once and fanned out to the clients following it, with a bounded replay window.
 * Streaming deltas pi emits within one turn of the event loop are merged into one event before they are
 * numbered (delta-run.ts), for every follower alike.
 * A session's numbering outlives its unloading, so a session that comes back keeps counting; the hub of an
 * unloaded session that nobody follows is dropped (only its seq is kept), so sessions that come and go do
 * not accumulate.
 */
import { randomUUID } from "node:crypto";
import type { SessionObserver, SessionSignal } from "../agent/types.js";
import { EventHub, type ReplayLimits } from "./event-hub.js";
import { createEventShaper, type EventShaper } from "./event-shape.js";

/** The runtime as the event streams see it: a source of session signals. */
export interface SignalSource {
	observe(observer: SessionObserver): () => void;
}

export interface EventStreamOptions {
	replayLimits?: ReplayLimits;
	/**
	 * Whether the runtime's streaming deltas of one turn are merged (default true). The transport's tests turn
	 * it off to feed the listener one event per delta, as a model streaming slower than the service reads would.
	 */
	mergeDeltas?: boolean;
}

export class EventStreams {
	/** Identifies this process's event numbering: a client holding seqs from another epoch must resync. */
	readonly epoch = randomUUID();
	private readonly hubs = new Map<string, EventHub>();
	private readonly shapers = new Map<string, EventShaper>();
	/** Sessions unloaded since their last event. */
	private readonly unloaded = new Set<string>();
	/** The last seq of each dropped hub, so a session that comes back keeps counting. */
	private readonly droppedSeq = new Map<string, number>();

	private readonly replayLimits: ReplayLimits | undefined;
	private readonly mergeDeltas: boolean;

	constructor(runtime: SignalSource, options: EventStreamOptions = {}) {
		this.replayLimits = options.replayLimits;
		this.mergeDeltas = options.mergeDeltas ?? true;
		runtime.observe((sessionId, signal) => this.receive(sessionId, signal));
	}

	/** The event hub of a session, loaded or not (created on first use). */
	hub(sessionId: string): EventHub {
		let hub = this.hubs.get(sessionId);
		if (!hub) {
			hub = new EventHub(sessionId, this.replayLimits, this.droppedSeq.get(sessionId) ?? 0, () => this.dropIfIdle(sessionId));
			this.droppedSeq.delete(sessionId);
			this.hubs.set(sessionId, hub);
		}
		return hub;
	}

	/** How many hubs are held (for tests of the bound). */
	get hubCount(): number {
		return this.hubs.size;
	}

	private dropIfIdle(sessionId: string): void {
		const hub = this.hubs.get(sessionId);
		if (!hub || hub.listenerCount > 0 || !this.unloaded.has(sessionId)) return;
		this.droppedSeq.set(sessionId, hub.seq);
		this.hubs.delete(sessionId);
	}

	private receive(sessionId: string, signal: SessionSignal): void {
		const hub = this.hub(sessionId);
		if (signal.kind === "unloaded") {
			hub.publish({ type: "session_unloaded", reason: signal.reason });
			hub.forgetReplay();
			this.shapers.delete(sessionId);
			this.unloaded.add(sessionId);
			this.dropIfIdle(sessionId);
			return;
		}
		this.unloaded.delete(sessionId);
		let shape = this.shapers.get(sessionId);
		if (!shape) this.shapers.set(sessionId, (shape = createEventShaper()));
		const shaped = shape(signal.event);
		if (!shaped) return;
		if (this.mergeDeltas) hub.offer(shaped);
		else hub.publish(shaped);
	}
}
