/** Polling for a condition the test cannot await directly (a count of events, a frame a gate holds). */

/** Resolves once `condition` holds (checked every 10 ms); rejects after `ms` (10 s), saying what it waited for. */
export async function until(condition: () => boolean, what: string | (() => string) = "the condition", ms = 10_000): Promise<void> {
	for (const deadline = Date.now() + ms; !condition(); ) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === "function" ? what() : what}`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}
