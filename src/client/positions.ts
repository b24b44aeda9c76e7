/**
 * Where the client stands in each session's event stream: which sessions it follows, the last seq it applied
 * and the epoch (the service process's numbering) that seq belongs to. This is what a reconnect sends in
 * `subscribe {sinceSeq, epoch}` so the service replays exactly what was missed, and what drops repeats.
 *
 * The epoch is a property of the connection (one service process), so it is learned once per connection from
 * any result that reports it (get_state, a lifecycle snapshot) and stamped on every position advanced on that
 * connection. A position with no known epoch makes the service answer `resync`, which is safe: the
 * application reloads instead of trusting a numbering nobody confirmed.
 */

interface Entry {
	/** The last seq applied (every event up to it was delivered, or is covered by a snapshot); unknown at first. */
	seq: number | undefined;
	epoch: string | undefined;
	/** The connection the seq was last advanced on. */
	connection: number;
	/** Resubscribed after a reconnect (false after the session was closed or unloaded). */
	followed: boolean;
}

/** What a resubscribe sends for one session. */
export interface Resume {
	sessionId: string;
	sinceSeq: number | undefined;
	epoch: string | undefined;
}

export class SessionPositions {
	private readonly entries = new Map<string, Entry>();
	private connection = 0;
	private epoch: string | undefined;

	/** A new socket: its epoch is unknown until a result or a confirmed resubscribe reports it. */
	newConnection(): void {
		this.connection++;
		this.epoch = undefined;
	}

	/** Whether this connection's epoch is known. */
	get epochKnown(): boolean {
		return this.epoch !== undefined;
	}

	/** The current connection's epoch, reported by a result: positions advanced on this connection get it. */
	learnEpoch(epoch: string): void {
		this.epoch = epoch;
		for (const entry of this.entries.values()) if (entry.connection === this.connection) entry.epoch = epoch;
	}

	/** The session is followed from now on (a command addressed it, or its events or snapshot arrived). */
	follow(sessionId: string): void {
		this.entry(sessionId).followed = true;
	}

	/** The session was closed or unloaded: a reconnect does not subscribe to it (its position is kept for repeats). */
	unfollow(sessionId: string): void {
		const entry = this.entries.get(sessionId);
		if (entry) entry.followed = false;
	}

	follows(sessionId: string): boolean {
		return this.entries.get(sessionId)?.followed ?? false;
	}

	/** An event arrived: true to deliver it, false for a repeat (seq at or below the last applied one). */
	accept(sessionId: string, seq: number): boolean {
		const entry = this.entry(sessionId);
		entry.followed = true;
		if (entry.seq !== undefined && seq <= entry.seq) return false;
		this.advance(entry, seq);
		return true;
	}

	/**
	 * A result taken on this socket covers every event up to `seq` (get_messages, get_state, a lifecycle
	 * snapshot, subscribe): events it already delivered came before it, later repeats are dropped.
	 */
	cover(sessionId: string, seq: number): void {
		const entry = this.entry(sessionId);
		entry.followed = true;
		if (entry.seq === undefined || seq > entry.seq) this.advance(entry, seq);
		else this.stamp(entry);
	}

	/** After a resync the old numbering is void: the position restarts at the service's current seq. */
	restart(sessionId: string, seq: number): void {
		const entry = this.entry(sessionId);
		entry.followed = true;
		this.advance(entry, seq);
	}

	/** What to resubscribe with after a reconnect, for every followed session. */
	resumes(): Resume[] {
		return [...this.entries]
			.filter(([, entry]) => entry.followed)
			.map(([sessionId, entry]) => ({ sessionId, sinceSeq: entry.seq, epoch: entry.seq === undefined ? undefined : entry.epoch }));
	}

	/** The last applied seq of a session, if known. */
	lastSeq(sessionId: string): number | undefined {
		return this.entries.get(sessionId)?.seq;
	}

	private advance(entry: Entry, seq: number): void {
		entry.seq = seq;
		this.stamp(entry);
	}

	private stamp(entry: Entry): void {
		entry.connection = this.connection;
		entry.epoch = this.epoch;
	}

	private entry(sessionId: string): Entry {
		let entry = this.entries.get(sessionId);
		if (!entry) {
			entry = { seq: undefined, epoch: undefined, connection: this.connection, followed: false };
			this.entries.set(sessionId, entry);
		}
		return entry;
	}
}
