/**
 * Which sessions' events one connection receives. A connection follows a session from the first command
 * that addresses it, or from an explicit `subscribe`, which can first replay what the client missed.
 * Events are delivered in seq order with no gap and no repeat: a replay only happens before live delivery
 * starts. (The transport may then merge consecutive deltas for a client that is behind: see coalesce.ts.)
 */
import { CodedError } from "../shared/errors.js";
import type { ClientLink, EventClient, SubscribeResult } from "./context.js";
import type { PublishedEvent } from "./event-hub.js";
import type { EventStreams } from "./event-streams.js";

interface Following {
	/** The hub seq when live delivery began: every later event has been sent. */
	readonly from: number;
	readonly unsubscribe: () => void;
}

export class EventSubscriptions implements EventClient {
	readonly transport = "ws" as const;
	private readonly following = new Map<string, Following>();

	constructor(
		private readonly streams: EventStreams,
		private readonly deliver: (published: PublishedEvent) => void,
		/** The transport's drained(): see ClientLink. */
		readonly drained?: () => Promise<void>,
	) {}

	follow(sessionId: string): void {
		if (this.following.has(sessionId)) return;
		const hub = this.streams.hub(sessionId);
		const unsubscribe = hub.subscribe(this.deliver);
		this.following.set(sessionId, { from: hub.seq, unsubscribe });
	}

	/**
	 * Follows a session, first replaying what the client missed after `sinceSeq`. A replay needs the `epoch`
	 * the client's seqs come from: without it, with another one (the service restarted), or with a `sinceSeq`
	 * beyond the newest event (seqs from another numbering), nothing is replayed and `resync` asks the client
	 * to reload its snapshot.
	 */
	subscribe(sessionId: string, sinceSeq: number | undefined, epoch: string | undefined): SubscribeResult {
		const hub = this.streams.hub(sessionId);
		const staleEpoch = sinceSeq !== undefined ? epoch !== this.streams.epoch : epoch !== undefined && epoch !== this.streams.epoch;
		const result = (replayed: number, resync: boolean): SubscribeResult => ({
			sessionId,
			seq: hub.seq,
			replayed,
			resync,
		});
		const current = this.following.get(sessionId);
		if (current) {
			// Already live: nothing can be replayed without reordering, so only say whether a gap exists.
			return result(0, staleEpoch || (sinceSeq !== undefined && sinceSeq < current.from));
		}
		if (sinceSeq === undefined) {
			this.follow(sessionId);
			return result(0, staleEpoch);
		}
		const missed = staleEpoch || sinceSeq > hub.seq ? undefined : hub.since(sinceSeq);
		for (const published of missed ?? []) this.deliver(published);
		this.follow(sessionId);
		return result(missed?.length ?? 0, missed === undefined);
	}

	/** Stops all deliveries (the connection closed). */
	close(): void {
		for (const { unsubscribe } of this.following.values()) unsubscribe();
		this.following.clear();
	}
}

/** The link of a request/response transport (POST /rpc): no event stream. */
export const NO_EVENT_STREAM: ClientLink = {
	transport: "rpc",
	follow: () => undefined,
	subscribe: () => {
		throw new CodedError("forbidden", "subscribe needs an event stream: use the /ws WebSocket");
	},
};
