/**
 * Work that must not interleave, run one after another per key (different keys run side by side). The
 * workflows use it now that git runs without blocking the event loop: what happened one command at a time
 * while git held the loop still does, per workflow and per repository.
 */
export class SerialQueues {
	private readonly tails = new Map<string, Promise<void>>();

	/** Runs `task` once everything queued before it under `key` has settled; a failure does not stop the next. */
	run<T>(key: string, task: () => T | Promise<T>): Promise<T> {
		const result = (this.tails.get(key) ?? Promise.resolve()).then(task);
		const tail = result.then(
			() => undefined,
			() => undefined,
		);
		this.tails.set(key, tail);
		void tail.then(() => {
			if (this.tails.get(key) === tail) this.tails.delete(key);
		});
		return result;
	}
}
