/** Polling for a condition the test cannot await directly (a count of events, a frame a gate holds). */

/** Resolves once `condition` holds (checked every 10 ms); rejects after 10 s, saying what it waited for. */
export async function until(condition: () => boolean, what: string | (() => string) = "the condition"): Promise<void> {
	for (const deadline = Date.now() + 10_000; !condition(); ) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === "function" ? what() : what}`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}
