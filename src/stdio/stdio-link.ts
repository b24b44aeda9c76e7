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

	/** Replays what was missed of the current session (already followed: see subscribe on /ws); no other session. */
	subscribe(sessionId: string, sinceSeq: number | undefined, epoch: string | undefined): SubscribeResult {
		if (!this.current || sessionId !== this.current.sessionId) {
			throw new CodedError("forbidden", "In --mode rpc only the current session's events are sent: make it current with switch_session first");
		}
		return this.current.events.subscribe(sessionId, sinceSeq, epoch);
	}

	/** Stops every delivery (the transport is closing). */
	close(): void {
		this.current?.events.close();
		this.current = undefined;
	}
}
