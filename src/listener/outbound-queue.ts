/**
 * What one WebSocket client has yet to receive, queued in the service rather than in the socket's buffer.
 * A message is written only while the socket drains (less than a high-water mark handed over and not yet
 * written out); the rest waits here, where consecutive deltas of one content block are merged (coalesce.ts)
 * and where a client too far behind can be dropped in O(1). All queues share one budget, so the total
 * memory held for slow clients is bounded and the clients furthest behind are cut off first.
 */
import { canCoalesceParts, type DeltaPart, deltaPart, type WireEvent, withDelta } from "../protocol/coalesce.js";
import type { PublishedEvent } from "../protocol/event-hub.js";
import { MergedText } from "./merged-text.js";

/** Where a queue writes: one message at a time, told (`written`) once it has left the process or failed. */
export interface OutboundSink {
	write(text: string, written: (error?: Error | null) => void): void;
}

export interface QueueLimits {
	/** Messages that may wait; one more cuts the client off. */
	maxMessages: number;
	/** Bytes (JSON text length) that may wait; more cut the client off. */
	maxBytes: number;
	/** Messages are handed to the sink only while less than this is handed over and not yet written. */
	highWaterBytes: number;
	/** A waiting event absorbs no more deltas once it holds this many bytes (no cap when absent). */
	maxMergedBytes?: number;
}

/** How far behind a client was when it was cut off. */
export interface Backlog {
	messages: number;
	bytes: number;
}

/** A waiting message: an event (which may absorb the deltas after it) or a response's text. */
interface Entry {
	/** The event; once it absorbed others, the last of them (whose seq and fields the merged event keeps). */
	event: WireEvent | undefined;
	/** The event's delta sub-event when it may absorb the deltas after it. */
	part: DeltaPart | undefined;
	/** The text of the deltas it absorbed, its own first (undefined while it absorbed none). */
	merged: MergedText | undefined;
	/** The JSON text; undefined once the event absorbed another (it is serialized when written). */
	text: string | undefined;
	bytes: number;
	/** Nothing may merge into this entry any more. */
	sealed: boolean;
}

/** The bytes waiting in all queues, and who is cut off when there are too many. */
export class OutboundBudget {
	private total = 0;
	private readonly queues = new Set<OutboundQueue>();

	constructor(private readonly maxBytes: number) {}

	/** Bytes waiting in all queues. */
	get queuedBytes(): number {
		return this.total;
	}

	/** @internal a queue joins (while open) */
	add(queue: OutboundQueue): void {
		this.queues.add(queue);
	}

	/** @internal a queue leaves, releasing what it held */
	remove(queue: OutboundQueue, bytes: number): void {
		if (this.queues.delete(queue)) this.total -= bytes;
	}

	/** @internal a queue's waiting bytes changed */
	change(bytes: number): void {
		this.total += bytes;
	}

	/** Cuts off the queues furthest behind (most bytes waiting) until the total is within the budget. */
	enforce(): void {
		while (this.total > this.maxBytes) {
			let furthest: OutboundQueue | undefined;
			for (const queue of this.queues) if (!furthest || queue.queuedBytes > furthest.queuedBytes) furthest = queue;
			if (!furthest) return;
			furthest.overflow();
		}
	}
}

export class OutboundQueue {
	private entries: Array<Entry | undefined> = [];
	private head = 0; // index of the oldest waiting entry (the array is compacted lazily)
	private bytes = 0;
	private inFlight = 0;
	/** Sizes of the writes handed to the sink and not yet done, oldest first (from `writingHead`). */
	private writing: number[] = [];
	private writingHead = 0;
	private closed = false;
	private pumping = false;
	private mergingPaused = false;
	/** Who waits for the queue to drain (drained()). */
	private drainWaiters: Array<() => void> = [];

	/** `onOverflow` is told when this client is beyond its caps or the budget; the queue is already dropped. */
	constructor(
		private readonly sink: OutboundSink,
		private readonly limits: QueueLimits,
		private readonly budget: OutboundBudget,
		private readonly onOverflow: (backlog: Backlog) => void,
	) {
		budget.add(this);
	}

	/** Messages waiting (merged deltas count once). */
	get queuedMessages(): number {
		return this.entries.length - this.head;
	}

	/** Bytes waiting. */
	get queuedBytes(): number {
		return this.bytes;
	}

	/** Whether the queue was closed (the client is gone or cut off): it takes nothing more. */
	get isClosed(): boolean {
		return this.closed;
	}

	/**
	 * Stops (or resumes) merging. The owner pauses it while a command of the client is in flight: a command
	 * may take a snapshot at some seq (get_messages, subscribe), and no merged event may stand for events on
	 * both sides of it, or the client would apply text it already has. Whatever waits when merging pauses is
	 * sealed; the command's response then ends the run of mergeable events anyway.
	 */
	pauseMerging(paused: boolean): void {
		this.mergingPaused = paused;
		if (paused && this.queuedMessages > 0) this.entries[this.entries.length - 1]!.sealed = true;
	}

	/** Queues a published event (which may merge into the one waiting before it) or a response's JSON text. */
	push(message: PublishedEvent | string): void {
		if (this.closed) return;
		const text = typeof message === "string" ? message : message.json;
		const event = typeof message === "string" ? undefined : message.event;
		if (this.queuedMessages === 0 && this.inFlight < this.limits.highWaterBytes) {
			this.write(text);
			return;
		}
		const tail = this.queuedMessages > 0 ? this.entries[this.entries.length - 1]! : undefined;
		let added: number;
		const withinCap = this.limits.maxMergedBytes === undefined || (tail?.bytes ?? 0) + text.length <= this.limits.maxMergedBytes;
		const part = event && deltaPart(event);
		if (part && withinCap && !this.mergingPaused && tail?.part && !tail.sealed && canCoalesceParts(tail.event!, tail.part, event, part)) {
			(tail.merged ??= new MergedText(tail.part.delta)).add(part.delta);
			tail.event = event;
			tail.part = part;
			tail.text = undefined;
			added = part.delta.length;
			tail.bytes += added;
		} else {
			added = text.length;
			this.entries.push({ event, part, merged: undefined, text, bytes: added, sealed: this.mergingPaused });
		}
		this.bytes += added;
		this.budget.change(added);
		if (this.queuedMessages > this.limits.maxMessages || this.bytes > this.limits.maxBytes) this.overflow();
		else this.budget.enforce();
	}

	/**
	 * Resolves once nothing waits here and less than the high-water mark is handed over and not yet written
	 * (what was pushed has left the process, but for a socket's normal share), or once the queue is closed.
	 */
	drained(): Promise<void> {
		if (this.isDrained) return Promise.resolve();
		return new Promise((resolve) => this.drainWaiters.push(resolve));
	}

	private get isDrained(): boolean {
		return this.closed || (this.queuedMessages === 0 && this.inFlight < this.limits.highWaterBytes);
	}

	private wakeDrainWaiters(): void {
		if (this.drainWaiters.length === 0 || !this.isDrained) return;
		const waiters = this.drainWaiters;
		this.drainWaiters = [];
		for (const resolve of waiters) resolve();
	}

	/** Drops everything and stops, in O(1) whatever is waiting (the client is gone). */
	close(): void {
		if (this.closed) return;
		this.closed = true;
		this.budget.remove(this, this.bytes);
		this.entries = [];
		this.head = 0;
		this.bytes = 0;
		this.wakeDrainWaiters();
	}

	/** Drops the queue and tells the owner to cut the client off (beyond its caps, or the budget's). */
	overflow(): void {
		if (this.closed) return;
		const backlog = { messages: this.queuedMessages, bytes: this.bytes };
		this.close();
		this.onOverflow(backlog);
	}

	private write(text: string): void {
		const size = text.length;
		this.inFlight += size;
		this.writing.push(size);
		this.sink.write(text, this.afterWrite);
	}

	/**
	 * One callback for every write (no closure per message: a hundred followers of a long reply would make
	 * millions): a socket completes its writes in the order they were made, so the oldest size is the one done
	 * (and should a failure be reported out of turn, the queue is closed by it and the sizes still sum up).
	 */
	private readonly afterWrite = (error?: Error | null): void => {
		this.inFlight -= this.writing[this.writingHead]!;
		this.writing[this.writingHead++] = 0;
		if (this.writingHead === this.writing.length) {
			this.writing = [];
			this.writingHead = 0;
		} else if (this.writingHead > 1024 && this.writingHead * 2 > this.writing.length) {
			this.writing = this.writing.slice(this.writingHead);
			this.writingHead = 0;
		}
		if (error) this.close();
		else this.pump();
		this.wakeDrainWaiters();
	};

	/** Writes waiting messages while the socket drains. */
	private pump(): void {
		if (this.pumping) return; // a sink that calls back synchronously re-enters here
		this.pumping = true;
		while (!this.closed && this.head < this.entries.length && this.inFlight < this.limits.highWaterBytes) {
			const entry = this.entries[this.head]!;
			this.entries[this.head++] = undefined;
			this.bytes -= entry.bytes;
			this.budget.change(-entry.bytes);
			this.write(entry.text ?? JSON.stringify(entry.merged ? withDelta(entry.event!, entry.merged.text()) : entry.event));
		}
		if (this.head === this.entries.length) {
			this.entries = [];
			this.head = 0;
		} else if (this.head > 1024 && this.head * 2 > this.entries.length) {
			this.entries = this.entries.slice(this.head);
			this.head = 0;
		}
		this.pumping = false;
	}
}
