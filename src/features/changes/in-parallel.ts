/**
 * Per-file work (a token, a line count) for many files at once, a few at a time: one after another, a listing
 * of a thousand files waits a thousand times on the thread pool in a row; all at once, it would queue
 * thousands of opens ahead of every other client's file operations.
 */

/** Files worked on at once (the thread pool has four threads; a few more keep it busy). */
export const FILES_IN_FLIGHT = 8;

/** `work` for each item, at most FILES_IN_FLIGHT at a time; results in the items' order. */
export async function inParallel<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
	const results = new Array<R>(items.length);
	let next = 0;
	const worker = async () => {
		while (next < items.length) {
			const index = next++;
			results[index] = await work(items[index]!);
		}
	};
	await Promise.all(Array.from({ length: Math.min(FILES_IN_FLIGHT, items.length) }, worker));
	return results;
}
