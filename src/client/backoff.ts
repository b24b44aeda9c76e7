/**
 * The client's reconnect backoff: how long it waits before each retry after losing the service. The wait doubles
 * from 1 s so a brief restart is caught quickly, and stops growing at 15 s so a longer outage is still noticed
 * soon after it ends.
 */

/** The wait before the first retry. */
export const BACKOFF_START_MS = 1000;
/** The longest wait between two retries. */
export const BACKOFF_CAP_MS = 15_000;

/** The wait in ms before reconnect attempt `attempt` (0 for the first retry): 1 s, 2 s, 4 s, 8 s, then 15 s each. */
export function backoffDelay(attempt: number): number {
	return Math.min(BACKOFF_START_MS * 2 ** attempt, BACKOFF_CAP_MS);
}
