/**
 * Strict JSONL framing of standard input: a record ends at a line feed (LF) and nowhere else, so the Unicode
 * line separators JSON strings may hold never split one (which Node's readline would do). A carriage return
 * before the LF is dropped. Lines are cut on bytes, where an LF never sits inside a UTF-8 sequence, and decoded
 * whole. A line longer than the cap is not kept: its bytes are skipped up to its LF and it is reported once.
 */

export interface LineReaderEvents {
	/** A complete line, without its LF (and without a CR before it). */
	line(text: string): void;
	/** A line longer than the cap was skipped. */
	oversize(bytes: number): void;
}

export class JsonlLineReader {
	private parts: Buffer[] = [];
	private size = 0;
	/** Bytes of the current line when it is over the cap (its content is no longer kept). */
	private skipped = 0;

	constructor(
		private readonly maxLineBytes: number,
		private readonly events: LineReaderEvents,
	) {}

	/** Feeds a chunk of input; calls back for every line it completes. */
	push(chunk: Buffer): void {
		let start = 0;
		for (let lf = chunk.indexOf(0x0a, start); lf >= 0; lf = chunk.indexOf(0x0a, start)) {
			this.append(chunk.subarray(start, lf));
			this.finishLine();
			start = lf + 1;
		}
		this.append(chunk.subarray(start));
	}

	/** The input ended: a last line without an LF still counts. */
	end(): void {
		if (this.size > 0 || this.skipped > 0) this.finishLine();
	}

	private append(part: Buffer): void {
		if (part.length === 0) return;
		if (this.skipped > 0 || this.size + part.length > this.maxLineBytes) {
			this.skipped += this.size + part.length;
			this.parts = [];
			this.size = 0;
			return;
		}
		this.parts.push(part);
		this.size += part.length;
	}

	private finishLine(): void {
		if (this.skipped > 0) {
			const bytes = this.skipped;
			this.skipped = 0;
			this.events.oversize(bytes);
			return;
		}
		let text = Buffer.concat(this.parts, this.size).toString("utf8");
		this.parts = [];
		this.size = 0;
		if (text.endsWith("\r")) text = text.slice(0, -1);
		this.events.line(text);
	}
}
