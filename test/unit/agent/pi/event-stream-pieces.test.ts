import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { cutEventStreamsIntoPieces, EVENT_STREAM_PIECE_BYTES, EVENT_STREAM_TURN_MS, inPieces } from "../../../../src/agent/pi/event-stream-pieces.js";

/** A server that answers with `body` in one write, as `type`. */
async function serve(type: string, body: string): Promise<{ url: string; close(): void }> {
	const server = createServer((_request, response) => {
		response.writeHead(200, { "content-type": type });
		response.end(body);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() };
}

async function chunksOf(url: string): Promise<Uint8Array[]> {
	const response = await fetch(url);
	const chunks: Uint8Array[] = [];
	for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
	return chunks;
}

test("an event stream iterates in pieces of at most 1 KiB holding the same bytes; other bodies as they come", async () => {
	cutEventStreamsIntoPieces();
	cutEventStreamsIntoPieces(); // a second call adds no second wrapper
	const events = Array.from({ length: 2000 }, (_, i) => `data: {"n":${i},"text":"é🚀"}\n\n`).join("");
	const stream = await serve("text/event-stream; charset=utf-8", events);
	const plain = await serve("application/json", "x".repeat(200_000));
	try {
		const pieces = await chunksOf(stream.url);
		assert.ok(pieces.every((piece) => piece.byteLength <= EVENT_STREAM_PIECE_BYTES));
		assert.equal(Buffer.concat(pieces).toString("utf8"), events, "the same bytes, in order");
		const chunks = await chunksOf(plain.url);
		assert.ok(chunks.some((chunk) => chunk.byteLength > EVENT_STREAM_PIECE_BYTES), "a JSON body is not cut");
		assert.equal(await (await fetch(stream.url)).text(), events, "reading the body whole is unchanged");
	} finally {
		stream.close();
		plain.close();
	}
});

test("reading a stream whose bytes are all queued lets the event loop turn every few milliseconds", async () => {
	const bytes = new Uint8Array(64 * EVENT_STREAM_PIECE_BYTES).fill(120);
	const body = new ReadableStream<Uint8Array>({
		start(controller) {
			controller.enqueue(bytes); // everything already there: reading it needs no I/O at all
			controller.close();
		},
	});
	inPieces(body);
	let turns = 0;
	const counting = setInterval(() => turns++, 0);
	let read = 0;
	for await (const piece of body as unknown as AsyncIterable<Uint8Array>) {
		read += piece.byteLength;
		const until = performance.now() + EVENT_STREAM_TURN_MS / 2; // the reader's own work on each piece
		while (performance.now() < until);
	}
	clearInterval(counting);
	assert.equal(read, bytes.byteLength);
	assert.ok(turns >= 5, `the loop turned ${turns} times while 64 pieces were read`);
});
