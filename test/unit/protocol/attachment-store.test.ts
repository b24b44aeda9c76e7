/** The upload store: bounds while reading, types by first bytes, expiry, the pending bound, start-up cleanup; and the wire's image bound. */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { test } from "node:test";
import { AttachmentStore, UploadRefused } from "../../../src/protocol/attachment-store.js";
import { sendWithImages } from "../../../src/protocol/attached-images.js";
import { eventMessage, MAX_SNAPSHOT_IMAGE_CHARS, transcriptMessages } from "../../../src/protocol/wire-images.js";
import { tempDir } from "../../support/skiff-process.js";

const GIF = Buffer.from("GIF89a__________");
const body = (...chunks: Buffer[]) => Readable.from(chunks);

async function opened(limits = {}, now = () => 0): Promise<AttachmentStore> {
	const store = new AttachmentStore(join(tempDir(), "attachments"), limits, now);
	await store.open();
	return store;
}

test("an upload read in chunks is kept, read back as image content, and removed once released", async () => {
	const store = await opened();
	const saved = await store.save(body(GIF.subarray(0, 3), GIF.subarray(3)), "image/gif; charset=binary");
	assert.deepEqual({ mimeType: saved.mimeType, bytes: saved.bytes }, { mimeType: "image/gif", bytes: GIF.length });
	assert.deepEqual(readdirSync(store.dir), [saved.id]);
	assert.deepEqual(await store.read([saved.id]), [{ type: "image", data: GIF.toString("base64"), mimeType: "image/gif" }]);
	await store.release([saved.id]);
	assert.deepEqual(readdirSync(store.dir), []);
	await assert.rejects(store.read([saved.id]), /unknown or expired/);
	store.close();
});

test("the size bound holds while reading, whatever is declared, and nothing is left behind", async () => {
	const store = await opened({ maxBytes: 20 });
	await assert.rejects(store.save(body(GIF, GIF), "image/gif"), (error: UploadRefused) => error.status === 413 && /more than/.test(error.message));
	await assert.rejects(store.save(body(GIF), "image/gif", 21), (error: UploadRefused) => error.status === 413 && /21 bytes/.test(error.message));
	assert.deepEqual(readdirSync(store.dir), []);
	assert.equal(store.size, 0);
	store.close();
});

test("a stream that fails mid-way leaves no file and no reservation", async () => {
	const store = await opened();
	let reads = 0;
	const failing = new Readable({
		read() {
			if (reads++ === 0) this.push(GIF);
			else this.destroy(new Error("aborted"));
		},
	});
	await assert.rejects(store.save(failing, "image/gif"), /aborted/);
	assert.deepEqual(readdirSync(store.dir), []);
	assert.equal(store.size, 0);
	store.close();
});

test("unused uploads expire, and the number kept is bounded", async () => {
	let clock = 0;
	const store = await opened({ maxPending: 2, ttlMs: 1000 }, () => clock);
	const first = await store.save(body(GIF), "image/gif");
	await store.save(body(GIF), "image/gif");
	await assert.rejects(store.save(body(GIF), "image/gif"), (error: UploadRefused) => error.status === 429 && /at most 2/.test(error.message));
	clock = 1001;
	await assert.rejects(store.read([first.id]), /Attachment [0-9a-f]{32} is unknown or expired/);
	assert.deepEqual(readdirSync(store.dir), [], "the expired files are gone");
	assert.equal((await store.save(body(GIF), "image/gif")).bytes, GIF.length);
	store.close();
});

test("opening removes what a previous process left", async () => {
	const dir = join(tempDir(), "attachments");
	mkdirSync(dir);
	writeFileSync(join(dir, "0123456789abcdef0123456789abcdef"), GIF);
	writeFileSync(join(dir, "fedcba9876543210fedcba9876543210.part"), GIF);
	const store = new AttachmentStore(dir);
	await store.open();
	assert.deepEqual(readdirSync(dir), []);
	store.close();
});

test("a message gets its inline and uploaded images in order; its uploads are claimed while it is sent, removed once accepted, given back when refused", async () => {
	const store = await opened();
	const { id } = await store.save(body(GIF), "image/gif");
	const inline = { type: "image" as const, data: GIF.toString("base64"), mimeType: "image/gif" };
	const named = [{ type: "image" as const, attachmentId: id }, inline];
	await assert.rejects(
		sendWithImages(named, store, async (images) => {
			assert.deepEqual(images, [inline, inline]);
			await assert.rejects(store.read([id]), (error: any) => error.code === "conflict" && /going with another message/.test(error.message));
			throw new Error("busy");
		}),
		/busy/,
	);
	let sent: unknown;
	await sendWithImages(named, store, async (images) => void (sent = images));
	assert.deepEqual(sent, [inline, inline], "a refused message's upload goes with the next one");
	assert.deepEqual(readdirSync(store.dir), []);
	await assert.rejects(store.read([id]), (error: any) => error.code === "not_found");
	await assert.rejects(sendWithImages([{ type: "image", attachmentId: id }], undefined, async () => {}), (error: any) => error.code === "unavailable");
	await assert.rejects(sendWithImages([{ type: "image", data: "aGVsbG8=", mimeType: "image/png" }], store, async () => {}), /does not start like one/);
	store.close();
});

test("the wire carries a user message's images up to a budget, the rest with their size only", () => {
	const image = (chars: number) => ({ type: "image", mimeType: "image/png", data: "A".repeat(chars - 1) + "=" });
	const user = { role: "user", content: [{ type: "text", text: "hi" }, image(8), image(8)] };
	assert.deepEqual(eventMessage(user, true).content.slice(1), [
		{ type: "image", mimeType: "image/png", data: "", omittedBytes: 5 },
		{ type: "image", mimeType: "image/png", data: "", omittedBytes: 5 },
	]);
	assert.equal(eventMessage(user, false), user, "within the budget: the same object");
	const assistant = { role: "assistant", content: [image(8)] };
	assert.equal(eventMessage(assistant, true), assistant);
	const big = (n: number) => ({ role: "user", content: [image(MAX_SNAPSHOT_IMAGE_CHARS / 2 + n)] });
	const sent = transcriptMessages([big(0), big(1), big(2)]) as Array<{ content: Array<{ data: string }> }>;
	assert.deepEqual(
		sent.map((m) => m.content[0]!.data.length > 0),
		[false, false, true],
		"the newest first",
	);
});
