import assert from "node:assert/strict";
import { test } from "node:test";
import { FrameBatch, type FrameTransport } from "../../../src/listener/frame-batch.js";

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

test("the frames of one tick leave in one write, in order, at the end of the tick; each is told once it is written", async () => {
	const transport = new HeldTransport();
	const batch = new FrameBatch(transport, () => true);
	const told: string[] = [];
	for (const text of ["a", "bb", "ccc"]) batch.add(frame(text), (error) => told.push(`${text}:${error ?? "ok"}`));
	assert.equal(transport.chunks.length, 0, "nothing is written before the tick ends");
	await tick();
	assert.deepEqual(transport.chunks.map(String), ["abbccc"], "one write, frames in the order handed over");
	assert.deepEqual(told, [], "not written out yet");
	transport.complete();
	assert.deepEqual(told, ["a:ok", "bb:ok", "ccc:ok"]);

	const lone = frame("d");
	batch.add(lone, () => undefined);
	await tick();
	assert.deepEqual(transport.chunks.map(String), ["abbccc", "d"], "a later tick gets a write of its own");
	assert.equal(transport.chunks[1], lone, "a lone frame is written as it is, not copied");
});

test("flush writes at once; a failed write fails every frame it held", async () => {
	const transport = new HeldTransport();
	const batch = new FrameBatch(transport, () => true);
	const errors: Array<Error | null | undefined> = [];
	batch.add(frame("x"), (error) => errors.push(error));
	batch.add(frame("y"), (error) => errors.push(error));
	batch.flush();
	assert.deepEqual(transport.chunks.map(String), ["xy"]);
	await tick();
	assert.equal(transport.chunks.length, 1, "the end of the tick finds nothing more to write");
	transport.complete(new Error("reset"));
	assert.deepEqual(
		errors.map((e) => e?.message),
		["reset", "reset"],
	);
});

test("once the WebSocket is no longer open nothing is written (its close frame is the last thing sent)", async () => {
	const transport = new HeldTransport();
	let open = true;
	const batch = new FrameBatch(transport, () => open);
	const errors: string[] = [];
	batch.add(frame("late"), (error) => errors.push(error?.message ?? "ok"));
	open = false;
	await tick();
	assert.equal(transport.chunks.length, 0);
	assert.deepEqual(errors, ["WebSocket is not open"]);
});
