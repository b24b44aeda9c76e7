/**
 * Throttling of failed authentication per client address: an address that fails `maxFailures` times within
 * a window (which starts at its first failure) is refused (429) for the rest of that window, before its
 * credentials are even looked at. The correct token works again when the window ends, so the throttle can
 * slow a guesser down but never lock the owner out for longer than one window. Other addresses are never
 * affected, and loopback addresses are throttled like any other (a local brute force is still one).
 */

export interface ThrottleLimits {
	maxFailures: number;
	windowMs: number;
}

interface Window {
	start: number;
	failures: number;
}

/** Addresses remembered at most; beyond it, expired windows are forgotten first, then the oldest. */
export const MAX_TRACKED_ADDRESSES = 10_000;

export class AuthThrottle {
	private readonly windows = new Map<string, Window>();

	constructor(
		private readonly limits: ThrottleLimits,
		private readonly now: () => number = Date.now,
	) {}

	/** Milliseconds until `address` may try again; 0 when it may try now. */
	retryAfterMs(address: string): number {
		const window = this.current(address);
		if (!window || window.failures < this.limits.maxFailures) return 0;
		return window.start + this.limits.windowMs - this.now();
	}

	/** Counts a failure of `address`; true when this failure starts its throttle. */
	recordFailure(address: string): boolean {
		let window = this.current(address);
		if (!window) {
			this.makeRoom();
			window = { start: this.now(), failures: 0 };
			this.windows.set(address, window);
		}
		window.failures++;
		return window.failures === this.limits.maxFailures;
	}

	/** The address's window while it lasts. */
	private current(address: string): Window | undefined {
		const window = this.windows.get(address);
		if (window && this.now() - window.start >= this.limits.windowMs) {
			this.windows.delete(address);
			return undefined;
		}
		return window;
	}

	private makeRoom(): void {
		if (this.windows.size < MAX_TRACKED_ADDRESSES) return;
		const now = this.now();
		for (const [address, window] of this.windows) if (now - window.start >= this.limits.windowMs) this.windows.delete(address);
		// Still full: forget the oldest window (Map keeps insertion order).
		if (this.windows.size >= MAX_TRACKED_ADDRESSES) this.windows.delete(this.windows.keys().next().value!);
	}
}
