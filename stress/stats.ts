/**
 * Summaries of benchmark samples: a median with its spread, so a reader can tell a gap from noise. Spread is
 * min–max for a handful of whole-process iterations (as in docs/peer-baselines.md) and p25–p75 for
 * hundreds of rounds, where min and max only show one lucky or unlucky round.
 */

/** Which range is printed beside a median. */
export type Spread = "min–max" | "p25–p75";

/** The q-quantile (0 ≤ q ≤ 1) of the samples, interpolating linearly between the two nearest ranks. */
export function quantile(samples: readonly number[], q: number): number {
	if (samples.length === 0) throw new Error("quantile of no samples");
	const sorted = [...samples].sort((a, b) => a - b);
	const rank = q * (sorted.length - 1);
	const below = Math.floor(rank);
	const above = Math.ceil(rank);
	return sorted[below]! + (sorted[above]! - sorted[below]!) * (rank - below);
}

export const median = (samples: readonly number[]): number => quantile(samples, 0.5);

/** `1,234.5`: fixed decimals with thousands separators. */
export function formatNumber(value: number, digits: number): string {
	return value.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** `median (low–high)`, e.g. `511 (480–560)`. */
export function medianWithSpread(samples: readonly number[], digits: number, spread: Spread): string {
	const [low, high] = spread === "min–max" ? [0, 1] : [0.25, 0.75];
	const range = `${formatNumber(quantile(samples, low), digits)}–${formatNumber(quantile(samples, high), digits)}`;
	return `${formatNumber(median(samples), digits)} (${range})`;
}
