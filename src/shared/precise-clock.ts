/**
 * The time as epoch milliseconds with a fraction (from the monotonic clock): readings a few microseconds apart
 * still compare in order, which Date.now() cannot promise within one millisecond.
 */
export function preciseNow(): number {
	return performance.timeOrigin + performance.now();
}
