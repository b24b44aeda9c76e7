import assert from "node:assert/strict";
import { test } from "node:test";
import { BATCH_FLUSH_BYTES, FrameBatch, type FrameTransport } from "../../../src/listener/frame-batch.js";

/** A socket that records each write and completes it when told. */
class HeldTransport implements FrameTransport {
	readonly chunks: Buffer[] = [];
	private readonly pending: Array<(error?: Error | null) => void> = [];
	write(chunk: Buffer, callback: (error?: Error | null) => void): boolean {
		this.chunks.push(chunk);
		this.pending.push(callback);
		return true;
	}
	complete(error?: Error): void {
		this.pending.shift()!(error);
	}
}

const frame = (text: string) => Buffer.from(text);
const tick = () => new Promise<void>((resolve) => process.nextTick(resolve));

test("the first frame of a tick leaves at once, the rest of the tick in one write at its end, in order; each is told once written", async () => {
	const transport = new HeldTransport();
	const batch = new FrameBatch(transport, () => true);
	const told: string[] = [];
	const first = frame("a");
	for (const piece of [first, frame("bb"), frame("ccc")]) batch.add(piece, (error) => told.push(`${piece}:${error ?? "ok"}`));
	assert.equal(transport.chunks.length, 1, "the first frame is not held back");
	assert.equal(transport.chunks[0], first, "a lone frame is written as it is, not copied");
	await tick();
	assert.deepEqual(transport.chunks.map(String), ["a", "bbccc"], "the rest of the tick in one write, in the order handed over");
	assert.deepEqual(told, [], "not written out yet");
	transport.complete();
	transport.complete();
	assert.deepEqual(told, ["a:ok", "bb:ok", "ccc:ok"]);

	batch.add(frame("d"), () => undefined);
	assert.deepEqual(transport.chunks.map(String), ["a", "bbccc", "d"], "a later tick's first frame leaves at once too");
});

test("frames that wait 16 KiB leave before the tick ends", () => {
	const transport = new HeldTransport();
	const batch = new FrameBatch(transport, () => true);
	const piece = Buffer.alloc(1024, 120);
	for (let i = 0; i <= BATCH_FLUSH_BYTES / piece.length; i++) batch.add(piece, () => undefined);
	assert.deepEqual(
		transport.chunks.map((chunk) => chunk.length),
		[piece.length, BATCH_FLUSH_BYTES],
	);
});

test("flush writes what waits at once; a failed write fails every frame it held", async () => {
	const transport = new HeldTransport();
	const batch = new FrameBatch(transport, () => true);
	const errors: Array<string | undefined> = [];
	for (const text of ["x", "y", "z"]) batch.add(frame(text), (error) => errors.push(`${text}:${error?.message}`));
	batch.flush();
	assert.deepEqual(transport.chunks.map(String), ["x", "yz"]);
	await tick();
	assert.equal(transport.chunks.length, 2, "the end of the tick finds nothing more to write");
	transport.complete();
	transport.complete(new Error("reset"));
	assert.deepEqual(errors, ["x:undefined", "y:reset", "z:reset"]);
});

test("once the WebSocket is no longer open nothing more is written (its close frame is the last thing sent)", async () => {
	const transport = new HeldTransport();
	let open = true;
	const batch = new FrameBatch(transport, () => open);
	const errors: string[] = [];
	batch.add(frame("sent"), () => undefined);
	batch.add(frame("late"), (error) => errors.push(error?.message ?? "ok"));
	open = false;
	await tick();
	assert.deepEqual(transport.chunks.map(String), ["sent"]);
	assert.deepEqual(errors, ["WebSocket is not open"]);
	batch.add(frame("later"), (error) => errors.push(error?.message ?? "ok"));
	assert.deepEqual(errors, ["WebSocket is not open", "WebSocket is not open"]);
	assert.equal(transport.chunks.length, 1);
});

test("a write the kernel took whole is told at once, not on the socket's later callback, and told once", () => {
	const chunks: Buffer[] = [];
	let later: ((error?: Error | null) => void) | undefined;
	const transport: FrameTransport = {
		writableLength: 0, // a net.Socket right after a write that completed synchronously
		write(chunk, callback) {
			chunks.push(chunk);
			later = callback;
			return true;
		},
	};
	const batch = new FrameBatch(transport, () => true);
	const told: string[] = [];
	batch.add(frame("now"), (error) => told.push(`now:${error ?? "ok"}`));
	assert.deepEqual(told, ["now:ok"]);
	later!();
	assert.deepEqual(told, ["now:ok"], "the socket's own callback tells nobody twice");
});

test("a frame that must not wait leaves at once, with what waited before it", () => {
	const transport = new HeldTransport();
	const batch = new FrameBatch(transport, () => true);
	batch.add(frame("a"), () => undefined);
	batch.add(frame("b"), () => undefined);
	batch.add(frame("c"), () => undefined);
	batch.add(frame("!"), () => undefined, true);
	assert.deepEqual(transport.chunks.map(String), ["a", "bc!"]);
});
