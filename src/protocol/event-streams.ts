/**
 * The wire side of every session's events: each runtime signal is shaped (deltas only), numbered per
 * session, serialized once and fanned out to the clients following it, with a bounded replay window.
 * A session's numbering outlives its unloading, so a session that comes back keeps counting.
 */
import { randomUUID } from "node:crypto";
import type { SessionObserver, SessionSignal } from "../agent/types.js";
import { EventHub, type ReplayLimits } from "./event-hub.js";
import { createEventShaper, type EventShaper } from "./event-shape.js";

/** The runtime as the event streams see it: a source of session signals. */
export interface SignalSource {
	observe(observer: SessionObserver): () => void;
}

export class EventStreams {
	/** Identifies this process's event numbering: a client holding seqs from another epoch must resync. */
	readonly epoch = randomUUID();
	private readonly hubs = new Map<string, EventHub>();
	private readonly shapers = new Map<string, EventShaper>();

	constructor(
		runtime: SignalSource,
		private readonly replayLimits?: ReplayLimits,
	) {
		runtime.observe((sessionId, signal) => this.receive(sessionId, signal));
	}

	/** The event hub of a session, loaded or not (created on first use). */
	hub(sessionId: string): EventHub {
		let hub = this.hubs.get(sessionId);
		if (!hub) {
			hub = new EventHub(sessionId, this.replayLimits);
			this.hubs.set(sessionId, hub);
		}
		return hub;
	}

	private receive(sessionId: string, signal: SessionSignal): void {
		const hub = this.hub(sessionId);
		if (signal.kind === "unloaded") {
			hub.publish({ type: "session_unloaded", reason: signal.reason });
			hub.forgetReplay();
			this.shapers.delete(sessionId);
			return;
		}
		let shape = this.shapers.get(sessionId);
		if (!shape) this.shapers.set(sessionId, (shape = createEventShaper()));
		const shaped = shape(signal.event);
		if (shaped) hub.publish(shaped);
	}
}
