/**
 * Command-line options of the benchmark scripts. `npm run bench` passes the same arguments to every script
 * (see all.ts), so each script accepts all of them and uses the ones that apply to it.
 */
import { parseArgs } from "node:util";

export interface BenchOptions {
	/** Fresh-process iterations per side (run.ts, web-page.ts). */
	iterations: number;
	/** Text deltas in the measured reply (run.ts). */
	deltas: number;
	/** Timed calls per operation (memory.ts). */
	rounds: number;
	/** new_session + close_session cycles (churn.ts). */
	cycles: number;
	/** Replace this script's section of docs/benchmarks.md with the new table. */
	write: boolean;
	/** The `codex` binary to run as a third side of the streaming benchmark (run.ts; see codex-side.ts). */
	codex?: string;
}

const DEFAULTS = { iterations: 5, deltas: 20_000, rounds: 200, cycles: 6000 };

/** Reads process.argv; throws naming the option when a count is not a positive whole number. */
export function readBenchOptions(): BenchOptions {
	const { values } = parseArgs({
		options: {
			iterations: { type: "string" },
			deltas: { type: "string" },
			rounds: { type: "string" },
			cycles: { type: "string" },
			write: { type: "boolean", default: false },
			codex: { type: "string" },
		},
	});
	const count = (name: keyof typeof DEFAULTS): number => {
		const text = values[name];
		if (text === undefined) return DEFAULTS[name];
		const value = Number(text);
		if (!Number.isSafeInteger(value) || value < 1) throw new Error(`--${name} must be a positive whole number, got "${text}"`);
		return value;
	};
	return { iterations: count("iterations"), deltas: count("deltas"), rounds: count("rounds"), cycles: count("cycles"), write: values.write, codex: values.codex };
}
