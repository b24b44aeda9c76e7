/**
 * Session summaries by file, kept while the file's size and modification time stay the same: a list reads
 * again only files that changed, so listing thousands of sessions a second time is one stat per file (on the
 * thread pool, a few dozen at a time), not a read of each. Memory is bounded by what is on disk: entries of
 * files not seen by a listing for a while are dropped (see `of`), and a summary with a long first message is
 * not kept (about 5 KiB at most per file).
 */
import { stat } from "node:fs/promises";
import { type ScannedSummary, summarize } from "./session-scan.js";

/** Files stat'ed, then read, at once: enough to keep the thread pool busy, few enough to keep buffers small. */
const FILES_AT_ONCE = 16;

/** Listings after which a file none of them asked for is forgotten. */
const FORGET_AFTER_LISTINGS = 16;

/**
 * A summary whose first message is longer than this is not kept (the file is read again for each list): rows
 * carry the whole first message, and keeping thousands of long ones would hold tens of megabytes.
 */
export const KEPT_FIRST_MESSAGE_MAX_CHARS = 4096;

interface Cached {
	size: number;
	mtimeMs: number;
	summary: ScannedSummary | undefined;
	listing: number;
}

export class SummaryCache {
	private readonly byPath = new Map<string, Cached>();
	private listings = 0;

	/** The summaries of these files (those that are session files), in no particular order. */
	async of(paths: readonly string[]): Promise<ScannedSummary[]> {
		const listing = ++this.listings;
		const found: ScannedSummary[] = [];
		for (let i = 0; i < paths.length; i += FILES_AT_ONCE) {
			const group = paths.slice(i, i + FILES_AT_ONCE);
			const summaries = await Promise.all(group.map((path) => this.summaryOf(path, listing)));
			for (const summary of summaries) if (summary) found.push(summary);
		}
		for (const [path, cached] of this.byPath) if (listing - cached.listing > FORGET_AFTER_LISTINGS) this.byPath.delete(path);
		return found;
	}

	private async summaryOf(path: string, listing: number): Promise<ScannedSummary | undefined> {
		let stats;
		try {
			stats = await stat(path);
		} catch {
			this.byPath.delete(path);
			return undefined;
		}
		const cached = this.byPath.get(path);
		if (cached && cached.size === stats.size && cached.mtimeMs === stats.mtimeMs) {
			cached.listing = listing;
			return cached.summary;
		}
		const summary = await summarize(path);
		if ((summary?.firstMessage.length ?? 0) <= KEPT_FIRST_MESSAGE_MAX_CHARS) this.byPath.set(path, { size: stats.size, mtimeMs: stats.mtimeMs, summary, listing });
		else this.byPath.delete(path);
		return summary;
	}
}
