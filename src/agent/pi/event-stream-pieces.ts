/**
 * The OpenAI SDK (pi's client for OpenAI-compatible models) cuts a server-sent event stream into events by
 * copying what is left of its buffer after each event it finds, so its work and its garbage grow with the
 * square of a network chunk's size. When the service reads behind a fast stream, a chunk holds 16 KB or more
 * (a hundred events): a hundred copies of up to 16 KB each, buffers allocated outside V8's heap that pile up
 * until a collection and leave resident memory behind (issue 21: 200,000 deltas with thirty paused clients
 * left about 45 MiB more resident 10 s after the reply; with this, about 30). Here every event stream that
 * fetch returns is iterated in pieces of at most 1 KiB: views of the same bytes, no copy, the same text.
 * Only the iteration that the SDKs use (`for await` over the body) is cut; nothing else about the response
 * changes, and responses that are not event streams are left alone.
 *
 * The iteration also lets the event loop turn every 20 ms of reading. A body whose bytes are already queued
 * is read, parsed and handed to the agent as one unbroken chain of promises, so while the service reads behind
 * a fast stream nothing else ran until it caught up: another client's ping waited up to 476 ms during a
 * 200,000-delta reply (60 to 330 ms with this, on a machine loaded 5 to 7). Yielding to the loop between
 * pieces (setImmediate) lets sockets, timers and the batched frames of the tick go out in between. (Every
 * 5 ms was worse with thirty paused clients: the reply took 17 to 25 s instead of 5 to 8.)
 */

/** The largest piece of an event stream handed to its reader. */
export const EVENT_STREAM_PIECE_BYTES = 1024;
/** The longest the reading of an event stream keeps the event loop before letting it turn. */
export const EVENT_STREAM_TURN_MS = 20;

const installed = Symbol.for("skiff.eventStreamPieces");

/** Wraps the global fetch once (later calls do nothing), so that event streams iterate in small pieces. */
export function cutEventStreamsIntoPieces(): void {
	const global = globalThis as typeof globalThis & { [installed]?: true };
	if (global[installed] || typeof global.fetch !== "function") return;
	global[installed] = true;
	const original = global.fetch;
	global.fetch = async function fetch(input, init) {
		const response = await original(input, init);
		if (response.body && response.headers.get("content-type")?.includes("text/event-stream")) inPieces(response.body);
		return response;
	};
}

type StreamValues = (this: ReadableStream<Uint8Array>, options?: unknown) => AsyncIterableIterator<Uint8Array>;
/**
 * The web stream's own iteration, looked up on first use: naming `ReadableStream` loads Node's web streams (1 to
 * 3 ms in profiles of start-up), which a start does not otherwise need before its first answer.
 */
let streamValues: StreamValues | undefined;

/** Makes `for await` over `body` yield its chunks cut into pieces of at most EVENT_STREAM_PIECE_BYTES. */
export function inPieces(body: ReadableStream<Uint8Array>): void {
	Object.defineProperty(body, Symbol.asyncIterator, {
		configurable: true,
		writable: true,
		value(this: ReadableStream<Uint8Array>, options?: unknown) {
			streamValues ??= ReadableStream.prototype[Symbol.asyncIterator] as StreamValues;
			return pieces(streamValues.call(this, options));
		},
	});
}

/**
 * The pieces of `chunks`, as an iterator of its own rather than an async generator: a generator wrapped around
 * the stream's iterator added several promise hops to every chunk (a 20,000-delta reply reads tens of thousands
 * of small chunks); here a chunk that needs no cutting costs one `then`, and a cut chunk's further pieces none.
 */
function pieces(chunks: AsyncIterator<Uint8Array>): AsyncIterableIterator<Uint8Array> {
	/** The chunk being cut, and where its next piece starts. */
	let rest: Uint8Array | undefined;
	let offset = 0;
	let since = performance.now();
	/** Hands `result` on, after a turn of the event loop once reading has kept it EVENT_STREAM_TURN_MS. */
	const afterTurn = (result: IteratorResult<Uint8Array>): IteratorResult<Uint8Array> | Promise<IteratorResult<Uint8Array>> => {
		if (performance.now() - since < EVENT_STREAM_TURN_MS) return result;
		return new Promise((resolve) =>
			setImmediate(() => {
				since = performance.now();
				resolve(result);
			}),
		);
	};
	const nextPiece = (): IteratorResult<Uint8Array> => {
		const chunk = rest!;
		const piece = chunk.subarray(offset, offset + EVENT_STREAM_PIECE_BYTES);
		offset += EVENT_STREAM_PIECE_BYTES;
		if (offset >= chunk.byteLength) rest = undefined;
		return { value: piece, done: false };
	};
	const cut = (result: IteratorResult<Uint8Array>) => {
		if (result.done || !(result.value instanceof Uint8Array) || result.value.byteLength <= EVENT_STREAM_PIECE_BYTES) return afterTurn(result);
		rest = result.value;
		offset = 0;
		return afterTurn(nextPiece());
	};
	return {
		next: () => (rest ? Promise.resolve(afterTurn(nextPiece())) : chunks.next().then(cut)),
		return: (value?: unknown) => {
			rest = undefined;
			return chunks.return ? chunks.return(value) : Promise.resolve({ value: undefined, done: true });
		},
		[Symbol.asyncIterator]() {
			return this;
		},
	};
}
