/**
 * A stdio MCP server's output, cut into messages (one JSON text per line) with memory bounded whatever it writes.
 * A line up to MAX_MESSAGE_BYTES is handed on whole. A longer one (a tool that answers with 50 MB) is not held:
 * only its first HEAD_BYTES and last TAIL_BYTES are kept, and when it ends it becomes a tool result made of the
 * text that fit, with a note, answering the request it was for (its id is in the kept head or tail: servers put
 * it first or last). Anything else too long is dropped and reported.
 */

/** Longest message read whole (an image of several MB fits; a tool's text is cut far below this anyway). */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** What is kept of the start of a longer line: enough for the text the model may see, and the id when first. */
export const HEAD_BYTES = 128 * 1024;
/** What is kept of its end: the id, when the server puts it last. */
export const TAIL_BYTES = 4 * 1024;

export type LineEvent =
	| { kind: "line"; text: string }
	/** A line over the bound: what was kept of it, and how long it was. */
	| { kind: "oversized"; head: string; tail: string; bytes: number };

export class MessageLines {
	private parts: Buffer[] = [];
	private held = 0;
	/** Set while a line is over the bound: its kept start, the end seen so far, its length. */
	private oversized: { head: Buffer; tail: Buffer; bytes: number } | undefined;

	constructor(
		private readonly emit: (event: LineEvent) => void,
		private readonly maxBytes = MAX_MESSAGE_BYTES,
	) {}

	push(chunk: Buffer): void {
		let start = 0;
		for (;;) {
			const newline = chunk.indexOf(0x0a, start);
			const piece = newline === -1 ? chunk.subarray(start) : chunk.subarray(start, newline);
			this.add(piece);
			if (newline === -1) return;
			this.endLine();
			start = newline + 1;
		}
	}

	private add(piece: Buffer): void {
		if (piece.length === 0) return;
		if (this.oversized) {
			this.oversized.bytes += piece.length;
			this.oversized.tail = keepEnd(Buffer.concat([this.oversized.tail, piece.subarray(Math.max(0, piece.length - TAIL_BYTES))]));
			return;
		}
		if (this.held + piece.length <= this.maxBytes) {
			this.parts.push(piece);
			this.held += piece.length;
			return;
		}
		// Only the head and the tail are copied out of what was held: joining it whole first would double the
		// line's memory (16 MiB more) at the moment it is let go.
		const all = [...this.parts, piece];
		const bytes = this.held + piece.length;
		this.parts = [];
		this.held = 0;
		this.oversized = { head: Buffer.concat(all, Math.min(HEAD_BYTES, bytes)), tail: lastBytes(all, TAIL_BYTES), bytes };
	}

	private endLine(): void {
		if (this.oversized) {
			const { head, tail, bytes } = this.oversized;
			this.oversized = undefined;
			this.emit({ kind: "oversized", head: head.toString("utf8"), tail: tail.toString("utf8"), bytes });
			return;
		}
		if (this.parts.length === 0) return;
		const text = (this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts)).toString("utf8");
		this.parts = [];
		this.held = 0;
		if (text.trim() !== "") this.emit({ kind: "line", text: text.replace(/\r$/, "") });
	}
}

/** A copy of the last `count` bytes of `pieces` taken in order. */
function lastBytes(pieces: Buffer[], count: number): Buffer {
	const taken: Buffer[] = [];
	let length = 0;
	for (let i = pieces.length - 1; i >= 0 && length < count; i--) {
		const piece = pieces[i]!;
		const part = piece.subarray(Math.max(0, piece.length - (count - length)));
		taken.unshift(part);
		length += part.length;
	}
	return Buffer.concat(taken, length);
}

function keepEnd(buffer: Buffer): Buffer {
	return buffer.length <= TAIL_BYTES ? Buffer.from(buffer) : Buffer.from(buffer.subarray(buffer.length - TAIL_BYTES));
}

/** The id of the JSON-RPC response a cut line was, from its start or end (`{"jsonrpc":"2.0","id":7,...` or `...,"id":7}`). */
export function idOfCutResponse(head: string, tail: string): number | string | undefined {
	const last = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")\s*\}\s*$/.exec(tail);
	const first = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")/.exec(head);
	const found = last?.[1] ?? first?.[1];
	if (found === undefined) return undefined;
	try {
		return JSON.parse(found) as number | string;
	} catch {
		return undefined;
	}
}

/** The text of the first `"text"` string in a cut message, as far as the kept head holds it (JSON escapes decoded). */
export function textOfCutResponse(head: string): string {
	const start = /"text"\s*:\s*"/.exec(head);
	if (!start) return "";
	let i = start.index + start[0].length;
	let out = "";
	while (i < head.length) {
		const c = head[i]!;
		if (c === '"') break;
		if (c !== "\\") {
			out += c;
			i++;
			continue;
		}
		const escape = head.slice(i, i + 6);
		if (escape[1] === "u") {
			if (escape.length < 6) break;
			out += String.fromCharCode(Number.parseInt(escape.slice(2), 16));
			i += 6;
			continue;
		}
		if (escape.length < 2) break;
		out += ({ n: "\n", t: "\t", r: "\r", b: "\b", f: "\f" } as Record<string, string>)[escape[1]!] ?? escape[1]!;
		i += 2;
	}
	return out;
}
