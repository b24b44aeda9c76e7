/**
 * Throttling of failed authentication, per client address and per kind of credential: an address that fails
 * `maxFailures` times with one kind within a window (which starts at its first failure) is throttled in that
 * kind for the rest of the window. A throttled attempt is still checked (admission.ts), and only a failing
 * one is answered 429: behind a proxy every client shares one address, so a throttle that refused the right
 * credential would let anyone who reaches the proxy lock out the owner and the guests. Kinds are counted
 * apart because their credentials are: failed guests never throttle the control plane, nor the reverse.
 * Loopback addresses are throttled like any other (a local brute force is still one).
 */

/**
 * The credential an admission checks: the control plane's (its token, and the browser rules, on /ws, /rpc and
 * /export: one credential, so one count whichever of them a guess is sent to), or a guest's room capability
 * (on /collab/ws/<roomId>: one count for every room, so a guesser gains nothing by naming other rooms, and
 * whether a room exists changes nothing a guesser can see).
 */
export type CredentialKind = "control" | "guest";

export interface ThrottleLimits {
	maxFailures: number;
	windowMs: number;
}

interface Window {
	start: number;
	failures: number;
}

/** Windows (address and kind) remembered at most; beyond it, expired windows are forgotten first, then the oldest. */
export const MAX_TRACKED_WINDOWS = 10_000;

export class AuthThrottle {
	private readonly windows = new Map<string, Window>();

	constructor(
		private readonly limits: ThrottleLimits,
		private readonly now: () => number = Date.now,
	) {}

	/** Milliseconds until `address`'s failures with `kind` stop being throttled; 0 when they are not. */
	retryAfterMs(kind: CredentialKind, address: string): number {
		const window = this.current(keyOf(kind, address));
		if (!window || window.failures < this.limits.maxFailures) return 0;
		return window.start + this.limits.windowMs - this.now();
	}

	/** Counts a failure of `address` with `kind`; true when this failure starts its throttle. */
	recordFailure(kind: CredentialKind, address: string): boolean {
		const key = keyOf(kind, address);
		let window = this.current(key);
		if (!window) {
			this.makeRoom();
			window = { start: this.now(), failures: 0 };
			this.windows.set(key, window);
		}
		window.failures++;
		return window.failures === this.limits.maxFailures;
	}

	/** The window of `key` while it lasts. */
	private current(key: string): Window | undefined {
		const window = this.windows.get(key);
		if (window && this.now() - window.start >= this.limits.windowMs) {
			this.windows.delete(key);
			return undefined;
		}
		return window;
	}

	private makeRoom(): void {
		if (this.windows.size < MAX_TRACKED_WINDOWS) return;
		const now = this.now();
		for (const [key, window] of this.windows) if (now - window.start >= this.limits.windowMs) this.windows.delete(key);
		// Still full: forget the oldest window (Map keeps insertion order).
		if (this.windows.size >= MAX_TRACKED_WINDOWS) this.windows.delete(this.windows.keys().next().value!);
	}
}

/** A kind never contains a space, so no two (kind, address) pairs share a key. */
function keyOf(kind: CredentialKind, address: string): string {
	return `${kind} ${address}`;
}
