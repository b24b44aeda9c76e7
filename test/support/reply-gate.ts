/** Holds the fake model's replies while a test looks at what happens meanwhile. */

/**
 * Pass `() => gate.held` (or a condition around it) as the fake model's `onRequest`: while held, every request
 * it is given waits until released.
 */
export class ReplyGate {
	private current: Promise<void> | undefined;

	/** What a request waits for now: a promise while held, else nothing. */
	get held(): Promise<void> | undefined {
		return this.current;
	}

	/** Holds every reply from now on; the returned function releases them (and lets later ones through). */
	hold(): () => void {
		let release!: () => void;
		this.current = new Promise((resolve) => (release = resolve));
		return () => {
			this.current = undefined;
			release();
		};
	}
}
