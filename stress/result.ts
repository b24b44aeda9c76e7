/** What a scenario reports: one row of the table in docs/reliability.md. */
import { formatNumber, quantile } from "./stats.js";

export interface ScenarioResult {
	/** Short name, e.g. "fan-out". */
	name: string;
	/** What was tried, in a sentence. */
	tried: string;
	/** How many (inputs, clients, kills, cycles…). */
	count: string;
	/** Every failure found; empty when the scenario passed. */
	failures: string[];
	/** The measured figures. */
	figure: string;
	/** Wall time of the scenario, ms. */
	durationMs?: number;
}

/** `12.3` style: fixed decimals with thousands separators. */
export const fmt = (value: number, digits = 0): string => formatNumber(value, digits);

/** p-quantile (0–1) of samples, or NaN when there are none. */
export function pct(samples: readonly number[], q: number): number {
	return samples.length === 0 ? Number.NaN : quantile(samples, q);
}

/** Largest sample without spreading a huge array into arguments. */
export function maxOf(samples: Iterable<number>): number {
	let max = Number.NEGATIVE_INFINITY;
	for (const value of samples) if (value > max) max = value;
	return max;
}

export function minOf(samples: Iterable<number>): number {
	let min = Number.POSITIVE_INFINITY;
	for (const value of samples) if (value < min) min = value;
	return min;
}
