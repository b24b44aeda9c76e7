/**
 * Both ends of an encrypted collaboration connection: the host's (node:crypto) with a guest's in node:crypto
 * and in WebCrypto. Every frame that is replayed, reordered, dropped, cut short, altered, reflected or too
 * large is refused, and the channel refuses everything after it.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { CollabChannel, FrameRejected } from "../../../src/collab/channel.js";
import { FRAME_HEADER_BYTES, MAX_GUEST_FRAME_BYTES, MAX_HOST_FRAME_BYTES } from "../../../src/shared/collab-wire.js";
import { GuestChannel, FrameRejected as WebFrameRejected } from "../../../web/src/collab/crypto.js";

const ROOM = "AAECAwQFBgcICQoLDA0ODw";
const text = (s: string) => new TextEncoder().encode(s);
const read = (b: Uint8Array) => new TextDecoder().decode(b);

function pair() {
	const key = randomBytes(32);
	const clientNonce = randomBytes(16);
	const serverNonce = randomBytes(16);
	return {
		key,
		clientNonce,
		serverNonce,
		host: CollabChannel.host(key, ROOM, clientNonce, serverNonce, MAX_GUEST_FRAME_BYTES),
		guest: CollabChannel.guest(key, ROOM, clientNonce, serverNonce, MAX_HOST_FRAME_BYTES),
	};
}

const rejects = (open: () => unknown, fault: string) =>
	assert.throws(open, (error: unknown) => error instanceof FrameRejected && error.fault === fault, `expected ${fault}`);

test("frames flow both ways in order", () => {
	const { host, guest } = pair();
	for (let i = 0; i < 5; i++) {
		assert.equal(read(host.open(guest.seal(text(`to host ${i}`)))), `to host ${i}`);
		assert.equal(read(guest.open(host.seal(text(`to guest ${i}`)))), `to guest ${i}`);
	}
});

test("a replayed frame is refused, and so is everything after it", () => {
	const { host, guest } = pair();
	const first = guest.seal(text("one"));
	host.open(first);
	rejects(() => host.open(first), "sequence");
	rejects(() => host.open(guest.seal(text("two"))), "closed");
});

test("reordered and dropped frames are refused", () => {
	const a = pair();
	const one = a.guest.seal(text("one"));
	const two = a.guest.seal(text("two"));
	rejects(() => a.host.open(two), "sequence");
	rejects(() => a.host.open(one), "closed");

	const b = pair();
	b.guest.seal(text("lost on the way"));
	rejects(() => b.host.open(b.guest.seal(text("after a gap"))), "sequence");
});

test("every single altered byte is refused", () => {
	const { key, clientNonce, serverNonce } = pair();
	const guest = CollabChannel.guest(key, ROOM, clientNonce, serverNonce, MAX_HOST_FRAME_BYTES);
	const frame = guest.seal(text('{"type":"prompt","message":"hi"}'));
	for (let i = 0; i < frame.length; i++) {
		const host = CollabChannel.host(key, ROOM, clientNonce, serverNonce, MAX_GUEST_FRAME_BYTES);
		const altered = Buffer.from(frame);
		altered[i]! ^= 0x01;
		assert.throws(() => host.open(altered), FrameRejected, `byte ${i}`);
	}
	const host = CollabChannel.host(key, ROOM, clientNonce, serverNonce, MAX_GUEST_FRAME_BYTES);
	assert.equal(read(host.open(frame)), '{"type":"prompt","message":"hi"}', "the unaltered frame still opens");
});

test("truncated frames are refused at every length", () => {
	const { key, clientNonce, serverNonce } = pair();
	const frame = CollabChannel.guest(key, ROOM, clientNonce, serverNonce, MAX_HOST_FRAME_BYTES).seal(text("a few words"));
	for (let length = 0; length < frame.length; length++) {
		const host = CollabChannel.host(key, ROOM, clientNonce, serverNonce, MAX_GUEST_FRAME_BYTES);
		assert.throws(() => host.open(frame.subarray(0, length)), FrameRejected, `length ${length}`);
	}
});

test("a frame reflected back to its sender, from another room or another connection is refused", () => {
	const { key, clientNonce, serverNonce, host, guest } = pair();
	rejects(() => host.open(host.seal(text("to guest"))), "direction");
	const otherRoom = CollabChannel.host(key, "BBECAwQFBgcICQoLDA0ODw", clientNonce, serverNonce, MAX_GUEST_FRAME_BYTES);
	rejects(() => otherRoom.open(guest.seal(text("hi"))), "authentication");
	const otherConnection = CollabChannel.host(key, ROOM, clientNonce, randomBytes(16), MAX_GUEST_FRAME_BYTES);
	rejects(() => otherConnection.open(CollabChannel.guest(key, ROOM, clientNonce, serverNonce, MAX_HOST_FRAME_BYTES).seal(text("hi"))), "authentication");
	const otherKey = CollabChannel.host(randomBytes(32), ROOM, clientNonce, serverNonce, MAX_GUEST_FRAME_BYTES);
	rejects(() => otherKey.open(CollabChannel.guest(key, ROOM, clientNonce, serverNonce, MAX_HOST_FRAME_BYTES).seal(text("hi"))), "authentication");
});

test("another version byte and frames over the limit are refused", () => {
	const a = pair();
	const frame = Buffer.from(a.guest.seal(text("hi")));
	frame[0] = 2;
	rejects(() => a.host.open(frame), "version");
	const b = pair();
	rejects(() => b.host.open(b.guest.seal(new Uint8Array(MAX_GUEST_FRAME_BYTES))), "size");
	assert.equal(b.guest.seal(new Uint8Array(MAX_GUEST_FRAME_BYTES - FRAME_HEADER_BYTES - 16)).length, MAX_GUEST_FRAME_BYTES);
});

test("the page's WebCrypto guest and the host's node:crypto end talk both ways", async () => {
	const { key, clientNonce, serverNonce, host } = pair();
	const guest = await GuestChannel.create(key, ROOM, clientNonce, serverNonce, MAX_HOST_FRAME_BYTES);
	// Sealed concurrently, the frames still come out in call order.
	const frames = await Promise.all([0, 1, 2, 3].map((i) => guest.seal(text(`guest ${i}`))));
	assert.deepEqual(frames.map((f) => read(host.open(f))), ["guest 0", "guest 1", "guest 2", "guest 3"]);
	const opened = await Promise.all([0, 1, 2].map((i) => guest.open(host.seal(text(`host ${i}`)))));
	assert.deepEqual(opened.map(read), ["host 0", "host 1", "host 2"]);
});

test("the WebCrypto guest refuses replayed, altered and oversize frames, then everything", async () => {
	const { key, clientNonce, serverNonce, host } = pair();
	const guest = await GuestChannel.create(key, ROOM, clientNonce, serverNonce, MAX_HOST_FRAME_BYTES);
	const first = host.seal(text("one"));
	await guest.open(first);
	await assert.rejects(guest.open(first), (e: unknown) => e instanceof WebFrameRejected && e.fault === "sequence");
	await assert.rejects(guest.open(host.seal(text("two"))), (e: unknown) => e instanceof WebFrameRejected && e.fault === "closed");

	const other = pair();
	const guest2 = await GuestChannel.create(other.key, ROOM, other.clientNonce, other.serverNonce, MAX_HOST_FRAME_BYTES);
	const altered = Buffer.from(other.host.seal(text("one")));
	altered[altered.length - 1]! ^= 0x80;
	await assert.rejects(guest2.open(altered), (e: unknown) => e instanceof WebFrameRejected && e.fault === "authentication");

	const third = pair();
	const guest3 = await GuestChannel.create(third.key, ROOM, third.clientNonce, third.serverNonce, MAX_HOST_FRAME_BYTES);
	await assert.rejects(guest3.open(third.host.seal(new Uint8Array(MAX_HOST_FRAME_BYTES))), (e: unknown) => e instanceof WebFrameRejected && e.fault === "size");
});
