/**
 * The client side of `--mode rpc`, as in pi's RPC mode: one current session, which commands that name no
 * `sessionId` address and whose events (only) reach standard output. Lifecycle commands (`new_session`,
 * `switch_session`, `fork`, `clone`) make the session they return the current one. Events still carry
 * `sessionId` and `seq`.
 */
import { CodedError } from "../shared/errors.js";
import type { ClientLink, EventClient, SubscribeResult } from "../protocol/context.js";

/** Makes an event client whose events go to standard output. */
export type EventClientFactory = () => EventClient;

export class StdioLink implements ClientLink {
	readonly transport = "stdio" as const;
	private current: { sessionId: string; events: EventClient } | undefined;
	private makeEvents: EventClientFactory | undefined;

	/** The core is loaded: events can be followed from now on, starting with `sessionId` (the primary). */
	start(makeEvents: EventClientFactory, sessionId: string): void {
		this.makeEvents = makeEvents;
		this.adopt(sessionId);
	}

	get defaultSessionId(): string | undefined {
		return this.current?.sessionId;
	}

	/** Only the current session's events are sent: addressing another session by id does not follow it. */
	follow(_sessionId: string): void {}

	adopt(sessionId: string): void {
		if (this.current?.sessionId === sessionId || !this.makeEvents) return;
		this.current?.events.close();
		const events = this.makeEvents();
		events.follow(sessionId);
		this.current = { sessionId, events };
	}

	/**
	 * `subscribe` is for /ws, where a client chooses what it follows and catches up after reconnecting. Here the
	 * current session's events are sent from the moment it becomes current, and a restarted process is a new
	 * session stream anyway.
	 */
	subscribe(): SubscribeResult {
		throw new CodedError(
			"forbidden",
			"subscribe is for /ws: in --mode rpc the current session's events are sent as they happen (make a session current with switch_session)",
		);
	}

	/** Stops every delivery (the transport is closing). */
	close(): void {
		this.current?.events.close();
		this.current = undefined;
	}
}
