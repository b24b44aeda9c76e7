/**
 * What was read from a file, kept while the file stays the same, so that a request path asking again does not
 * read and parse it again. "The same" is the file's identity as `stat` gives it: device, inode, size, and the
 * change and modification times in nanoseconds. A file replaced by a rename (every write of the service) gets
 * a new inode and change time; one edited in place gets a new modification time. A file rewritten in place
 * with the same size within the file system's clock tick can go unnoticed until its next change; callers
 * that must see the very latest bytes (a read-modify-write under a lock) read the file directly instead.
 */
import type { BigIntStats } from "node:fs";

export class FileCache<T> {
	/** Oldest use first (a Map keeps insertion order; a hit moves its entry to the end). */
	private readonly entries = new Map<string, { identity: string; value: T; weight: number }>();
	private weight = 0;

	/** At most `maxEntries` files, whose weights (their sizes, say) sum to at most `maxWeight`. */
	constructor(private readonly limits: { maxEntries: number; maxWeight?: number }) {}

	/** What was kept for `path` when the file is still the one `stat` describes. */
	get(path: string, stat: BigIntStats): T | undefined {
		const entry = this.entries.get(path);
		if (!entry) return undefined;
		if (entry.identity !== identityOf(stat)) {
			this.delete(path);
			return undefined;
		}
		this.entries.delete(path);
		this.entries.set(path, entry);
		return entry.value;
	}

	/** Keeps `value` for the file `stat` describes; the least recently used are dropped beyond the limits. */
	set(path: string, stat: BigIntStats, value: T, weight = 0): T {
		this.delete(path);
		const maxWeight = this.limits.maxWeight ?? Number.POSITIVE_INFINITY;
		if (weight > maxWeight) return value;
		this.entries.set(path, { identity: identityOf(stat), value, weight });
		this.weight += weight;
		for (const oldest of this.entries.keys()) {
			if (this.entries.size <= this.limits.maxEntries && this.weight <= maxWeight) break;
			this.delete(oldest);
		}
		return value;
	}

	/** Forgets `path` (it was just written: the next read reads it). */
	delete(path: string): void {
		const entry = this.entries.get(path);
		if (!entry) return;
		this.entries.delete(path);
		this.weight -= entry.weight;
	}
}

function identityOf(stat: BigIntStats): string {
	return `${stat.dev}:${stat.ino}:${stat.size}:${stat.ctimeNs}:${stat.mtimeNs}`;
}
