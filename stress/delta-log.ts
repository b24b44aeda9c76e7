/**
 * What one client received of a streamed reply: the seq and arrival time of every text delta, the text's
 * length, whether seqs only ever increased, and whether they skipped. Deltas come merged two ways: the
 * service merges the deltas the model sent within one turn of its event loop before numbering them (one event,
 * one seq, for every follower alike: src/protocol/delta-run.ts), and a client that fell behind gets the
 * deltas waiting in its queue merged (one event for several seqs, carrying the last one's seq, so its seqs
 * skip). So "when did this client have delta s" is the arrival of its first event whose seq is at least s, and
 * only a skip says the client fell behind.
 */
import type { WireEvent } from "./client.js";

export class DeltaLog {
	seqs: Int32Array;
	times: Float64Array;
	count = 0;
	chars = 0;
	lastSeq = -1;
	outOfOrder = 0;
	/** Events whose seq skipped numbers: the client fell behind and got merged deltas. */
	skipped = 0;
	ended = false;

	constructor(capacity: number) {
		this.seqs = new Int32Array(capacity);
		this.times = new Float64Array(capacity);
	}

	/** Feeds one event of the followed session. */
	add(event: WireEvent, receivedAt: number): void {
		if (typeof event.seq === "number") {
			if (event.seq <= this.lastSeq) this.outOfOrder++;
			else if (this.lastSeq >= 0 && event.seq > this.lastSeq + 1) this.skipped++;
			this.lastSeq = event.seq;
		}
		if (event.type === "agent_end") this.ended = true;
		const update = event.assistantMessageEvent;
		if (event.type !== "message_update" || update?.type !== "text_delta") return;
		if (this.count === this.seqs.length) this.grow();
		this.seqs[this.count] = event.seq;
		this.times[this.count] = receivedAt;
		this.count++;
		this.chars += update.delta.length;
	}

	private grow(): void {
		const seqs = new Int32Array(this.seqs.length * 2);
		seqs.set(this.seqs);
		const times = new Float64Array(this.times.length * 2);
		times.set(this.times);
		this.seqs = seqs;
		this.times = times;
	}
}

/**
 * For every published delta seq (the seqs of a client that got every delta unmerged, else the union of all
 * seen), the time between the first and the last client having it, in ms.
 */
export function deltaSpreads(logs: DeltaLog[]): number[] {
	const published = new Set<number>();
	for (const log of logs) for (let i = 0; i < log.count; i++) published.add(log.seqs[i]!);
	const seqs = [...published].sort((a, b) => a - b);
	const first = new Float64Array(seqs.length).fill(Number.POSITIVE_INFINITY);
	const last = new Float64Array(seqs.length).fill(Number.NEGATIVE_INFINITY);
	for (const log of logs) {
		let event = 0;
		for (let i = 0; i < seqs.length; i++) {
			while (event < log.count && log.seqs[event]! < seqs[i]!) event++;
			if (event === log.count) break;
			const at = log.times[event]!;
			if (at < first[i]!) first[i] = at;
			if (at > last[i]!) last[i] = at;
		}
	}
	return seqs.map((_, i) => last[i]! - first[i]!).filter((spread) => Number.isFinite(spread));
}
