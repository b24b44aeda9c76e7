/**
 * The lines of a streamed session file, each held within a bound, for the list's summaries and the search
 * (session-scan.ts). A recorded line holds a whole entry: a user message with eight 5 MiB images is one line of
 * about 53 MiB, and a line reader that hands out whole lines would hold all of it (and the search would copy it
 * to lower case and parse it). What the list and the search read of an entry is its text, never image data, so:
 *
 * - a line up to `wholeMaxBytes` is handed out as it is;
 * - a longer line is handed out with each of its JSON strings cut to its first `stringKeptBytes` (image data is
 *   one long string; a text block keeps that much of its text), the rest of the line as it is, so it still
 *   parses, while what is held of it never exceeds `wholeMaxBytes`;
 * - a line that is still longer once cut so (an entry of very many strings, or not JSON at all) is skipped, as a
 *   line that is not JSON is: read past, never held.
 *
 * It works on the file's bytes as they come (one read's chunk at a time, searched by the native `indexOf`), so no
 * step takes longer than a chunk's work. JSON's strings are found by their quotes: a quote inside a string is
 * escaped (`\"`), and an escape (`\n`, `\u00e9`) is never cut. The file is read into one buffer that every read
 * reuses (fileChunks), and each line is copied into one that every line reuses: reading past a long line leaves
 * nothing behind for the collector.
 */
import type { FileHandle } from "node:fs/promises";

export interface LineBounds {
	/** A line up to this many bytes is handed out whole; the bound on what is held of any line. */
	wholeMaxBytes: number;
	/** Of a longer line, each JSON string keeps this many bytes (at most; cut at a character's start). */
	stringKeptBytes: number;
}

/**
 * Session files: lines up to 2 MiB whole (all but messages with large images, or a huge pasted text); beyond,
 * 64 KiB of each string, so a message's eight images (MAX_IMAGES) keep half a MiB between them and its text
 * blocks are searched on their first 64 KiB each.
 */
export const SESSION_LINE_BOUNDS: LineBounds = { wholeMaxBytes: 2 * 1024 * 1024, stringKeptBytes: 64 * 1024 };

/** What a reader held at most of one line (before it is decoded), for tests. */
export interface HeldBytes {
	max: number;
}

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const U = 0x75;

/** Lines of `chunks` (a file's bytes), without their newline, decoded as UTF-8, each bounded as this file's header says. */
export async function* boundedLines(chunks: AsyncIterable<Buffer>, bounds: LineBounds = SESSION_LINE_BOUNDS, held?: HeldBytes): AsyncGenerator<string> {
	const line = new LineBuffer(bounds, held);
	let pending = false;
	for await (const chunk of chunks) {
		for (let at = 0; at < chunk.length; ) {
			const newline = chunk.indexOf(NEWLINE, at);
			const end = newline < 0 ? chunk.length : newline;
			line.add(chunk, at, end);
			pending = true;
			if (newline < 0) break;
			const text = line.take();
			pending = false;
			if (text !== undefined) yield text;
			at = newline + 1;
		}
	}
	if (pending) {
		const text = line.take();
		if (text !== undefined) yield text;
	}
}

/**
 * The chunks of a file from its start, read into one buffer that each read reuses: a chunk is valid until the
 * next is asked for. A stream allocates a buffer per read, and reading past a 50 MiB line leaves 50 MiB of them
 * to the collector, which frees memory outside V8's heap only when it runs.
 */
export async function* fileChunks(file: FileHandle, chunkBytes = CHUNK_BYTES): AsyncGenerator<Buffer> {
	const buffer = Buffer.allocUnsafe(chunkBytes);
	for (let position = 0; ; ) {
		const { bytesRead } = await file.read(buffer, 0, chunkBytes, position);
		if (bytesRead === 0) return;
		position += bytesRead;
		yield buffer.subarray(0, bytesRead);
	}
}

/** One read of a file (as a stream's). */
const CHUNK_BYTES = 64 * 1024;

/**
 * One line as it is read, copied out of the chunks (which are reused): whole while it fits, then with its
 * strings cut, then skipped. Its buffer serves every line of the file.
 */
class LineBuffer {
	private mode: "whole" | "cut" | "skip" = "whole";
	private out: Buffer | undefined;
	private bytes = 0;
	// The cut line's JSON lexer, across chunks.
	private inString = false;
	/** Bytes kept of the string being read (once it is cut, as many as it may keep). */
	private stringBytes = 0;
	/** Within an escape: right after its backslash, or how many of a `\u` escape's hex digits are to come. */
	private afterBackslash = false;
	private hexLeft = 0;
	/** Bytes of the last kept character that the next chunk holds (a character goes whole or not at all). */
	private charOwed = 0;
	/** Whether the escape being read is kept (an escape goes whole or not at all: a cut one would break the string's end). */
	private keepingEscape = false;

	constructor(
		private readonly bounds: LineBounds,
		private readonly held: HeldBytes | undefined,
	) {}

	/** Adds `chunk[from, to)` to the line. */
	add(chunk: Buffer, from: number, to: number): void {
		if (from === to || this.mode === "skip") return;
		if (this.mode === "whole") {
			if (this.bytes + (to - from) <= this.bounds.wholeMaxBytes) return this.keep(chunk, from, to);
			// Too long to hand out whole: cut what was held, in place (what is kept of it is never ahead of what is
			// read: Buffer#copy allows the overlap), then go on cutting.
			const held = this.bytes;
			this.mode = "cut";
			this.bytes = 0;
			this.cut(this.out!, 0, held);
		}
		this.cut(chunk, from, to);
	}

	/** The line read so far (undefined when skipped), and a fresh start for the next. */
	take(): string | undefined {
		const text = this.mode === "skip" ? undefined : this.bytes === 0 ? "" : this.out!.toString("utf8", 0, this.bytes);
		this.mode = "whole";
		this.bytes = 0;
		this.inString = false;
		this.stringBytes = 0;
		this.afterBackslash = false;
		this.hexLeft = 0;
		this.charOwed = 0;
		return text;
	}

	/** Copies `chunk[from, to)` to the line; past the bound (only a cut line gets there), the line is skipped. */
	private keep(chunk: Buffer, from: number, to: number): void {
		if (this.mode === "skip" || from === to) return;
		const size = this.bytes + (to - from);
		if (size > this.bounds.wholeMaxBytes) {
			// Still too long with its strings cut: read past it.
			this.mode = "skip";
			this.bytes = 0;
			return;
		}
		if (!this.out || this.out.length < size) {
			const grown = Buffer.allocUnsafe(Math.min(this.bounds.wholeMaxBytes, Math.max(size, 2 * (this.out?.length ?? 8 * 1024))));
			this.out?.copy(grown, 0, 0, this.bytes);
			this.out = grown;
		}
		chunk.copy(this.out, this.bytes, from, to);
		this.bytes = size;
		if (this.held && size > this.held.max) this.held.max = size;
	}

	/** Keeps `chunk[from, to)` but for what is past each string's first `stringKeptBytes`. */
	private cut(chunk: Buffer, from: number, to: number): void {
		let at = from;
		while (at < to && this.mode !== "skip") {
			if (this.afterBackslash || this.hexLeft > 0) {
				if (this.afterBackslash) {
					this.afterBackslash = false;
					if (chunk[at] === U) this.hexLeft = 4;
				} else this.hexLeft--;
				if (this.keepingEscape) {
					this.keep(chunk, at, at + 1);
					this.stringBytes++;
				}
				at++;
				continue;
			}
			const quote = indexIn(chunk, QUOTE, at, to);
			if (!this.inString) {
				const end = quote < 0 ? to : quote + 1;
				this.keep(chunk, at, end);
				if (quote >= 0) {
					this.inString = true;
					this.stringBytes = 0;
				}
				at = end;
				continue;
			}
			const backslash = indexIn(chunk, BACKSLASH, at, quote < 0 ? to : quote);
			const special = backslash >= 0 ? backslash : quote;
			this.keepOfString(chunk, at, special < 0 ? to : special);
			if (special < 0) return;
			if (special === backslash) {
				this.keepingEscape = this.stringBytes < this.bounds.stringKeptBytes;
				if (this.keepingEscape) {
					this.keep(chunk, special, special + 1);
					this.stringBytes++;
				}
				this.afterBackslash = true;
			} else {
				this.keep(chunk, special, special + 1);
				this.inString = false;
			}
			at = special + 1;
		}
	}

	/**
	 * Keeps of a string's plain bytes `chunk[from, to)` what fits its `stringKeptBytes`, never half a character:
	 * a character begun in the previous chunk is finished first, and a cut inside this range backs off to a
	 * character's start.
	 */
	private keepOfString(chunk: Buffer, from: number, to: number): void {
		if (this.charOwed > 0) {
			const end = Math.min(to, from + this.charOwed);
			this.keep(chunk, from, end);
			this.charOwed -= end - from;
			from = end;
		}
		let take = Math.min(to - from, this.bounds.stringKeptBytes - this.stringBytes);
		if (take <= 0) return;
		const cut = take < to - from;
		if (cut) while (take > 0 && (chunk[from + take]! & 0xc0) === 0x80) take--; // a continuation byte: back to its character's start
		// Read before keeping: a line cut in place (add) may overwrite what it keeps from.
		const owed = cut ? 0 : bytesOwed(chunk, from, from + take);
		this.keep(chunk, from, from + take);
		this.stringBytes = cut ? this.bounds.stringKeptBytes : this.stringBytes + take;
		this.charOwed = owed;
	}
}

/** How many bytes the last character of `chunk[from, end)` lacks (it goes on in the next chunk), else 0. */
function bytesOwed(chunk: Buffer, from: number, end: number): number {
	let start = end - 1;
	while (start > from && end - start < 4 && (chunk[start]! & 0xc0) === 0x80) start--;
	const lead = chunk[start]!;
	const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
	return Math.max(0, length - (end - start));
}

/** `chunk.indexOf(byte, from)` within `[from, to)`, else -1. */
function indexIn(chunk: Buffer, byte: number, from: number, to: number): number {
	const at = chunk.indexOf(byte, from);
	return at >= 0 && at < to ? at : -1;
}
