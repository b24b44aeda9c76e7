/**
 * The text of a run of merged deltas while it waits in a client's queue. Concatenating each delta onto the
 * text so far builds a chain of one string object per delta in V8 (a rope: 32 bytes for a one-character
 * delta), per client: thirty paused clients of a 200,000-delta reply held about 190 MB of it. Here the deltas
 * are kept as they are (shared with every other client) and joined a thousand at a time, so a waiting run
 * costs about its own length, and the text is joined once, when it is written.
 */

/** Deltas joined into one string at a time. */
const PIECES_PER_CHUNK = 1024;

export class MergedText {
	private pieces: string[];
	private readonly chunks: string[] = [];

	constructor(first: string) {
		this.pieces = [first];
	}

	add(delta: string): void {
		this.pieces.push(delta);
		if (this.pieces.length === PIECES_PER_CHUNK) {
			this.chunks.push(this.pieces.join(""));
			this.pieces = [];
		}
	}

	/** The whole text, in order. */
	text(): string {
		return this.chunks.join("") + this.pieces.join("");
	}
}
