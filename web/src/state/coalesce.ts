/**
 * A read that bursts of events ask for (one `session_list_changed` arrives per followed session): while it runs,
 * further calls make it run once more after, never several at once, so a socket's few commands in flight are
 * not spent on the same answer.
 */
export function coalesce(read: () => Promise<void>): () => Promise<void> {
	let running: Promise<void> | undefined;
	let again = false;
	const run = (): Promise<void> => {
		if (running) {
			again = true;
			return running;
		}
		running = read().finally(() => {
			running = undefined;
			if (again) {
				again = false;
				void run();
			}
		});
		return running;
	};
	return run;
}
