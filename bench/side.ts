/** What the streaming benchmark (run.ts) drives on each side: skiff, pi, and codex (codex-side.ts). */
import { processTreeRssMiB } from "./process-rss.js";

/** What a side reports for one prompt; times are epoch ms on the same clock as the fake model's. */
export interface PromptResult {
	sentAt: number;
	firstDeltaAt: number;
	endedAt: number;
	deltas: number;
	bytes: number;
	/** Bytes on the socket with WebSocket frame headers (skiff); stdio sides leave it out: their bytes are all. */
	wireBytes?: number;
	endRssMiB: number;
	/** Which request to the fake model this prompt made. */
	requestIndex: number;
}

/** A started agent process that the benchmark drives. */
export interface Side {
	pid: number;
	/** When the side was ready, if not when start() resolved (codex opens a thread after answering `initialize`). */
	readyAt?: number;
	prompt(message: string): Promise<PromptResult>;
	stop(): Promise<void>;
}

/** How a side's output lines are read for one prompt (pi's and codex's stdout). */
export interface LineReading {
	pid: number;
	requestIndex: number;
	sentAt: number;
	now(): number;
	/** A text delta's line. */
	isDelta(line: string): boolean;
	/** The line of the run's end. */
	isEnd(line: string): boolean;
	/** Called once, at the end line (the process tree's memory read then). */
	done(result: PromptResult): void;
}

/** A listener of output lines that counts the deltas and every byte (the end line's too) up to the end line. */
export function promptLines(reading: LineReading): (line: string, bytes: number) => void {
	let firstDeltaAt = 0;
	let deltas = 0;
	let bytes = 0;
	return (line, size) => {
		bytes += size;
		if (reading.isDelta(line)) {
			deltas++;
			if (!firstDeltaAt) firstDeltaAt = reading.now();
		} else if (reading.isEnd(line)) {
			const endedAt = reading.now();
			const { sentAt, requestIndex, pid } = reading;
			reading.done({ sentAt, firstDeltaAt, endedAt, deltas, bytes, endRssMiB: processTreeRssMiB(pid), requestIndex });
		}
	};
}
