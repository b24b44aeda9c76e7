/**
 * A fuzzed corpus of frames against the collaboration relay: random bytes, valid frames altered, cut,
 * extended, re-numbered, reflected or sealed with another key, text frames, before and after the join. Each
 * must close that guest (1008, 1003 or 1009) with a fixed reason, decrypt to nothing, reach no session, leak
 * nothing, and leave the host's session and the other guests working. The corpus is seeded: a failure names
 * its case, and reruns the same.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { capabilityOf, deriveDirectionKeys, sealFrame } from "../../src/collab/channel.js";
import { GUEST_TO_HOST, HOST_TO_GUEST, MAX_GUEST_FRAME_BYTES } from "../../src/shared/collab-wire.js";
import { type CollabHarness, PRIMARY_SESSION, startCollabHarness } from "../support/collab-harness.js";
import { RawGuest } from "../support/collab-guest.js";
import { TestClient } from "../support/ws-client.js";

const SEED = 0x5eed14;
const CASES = 240;
/** Guests fuzzed at once (the room seats them all, plus the witness). */
const BATCH = 12;

/** mulberry32: a small seeded generator, so the corpus is the same on every run. */
function generator(seed: number) {
	let state = seed >>> 0;
	const next = () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	const int = (n: number) => Math.floor(next() * n);
	const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => int(256)));
	return { int, bytes, pick: <T>(items: readonly T[]) => items[int(items.length)]! };
}

/** One fuzz case: what to send, given the guest's state (its channel, so valid frames can be made and spoiled). */
interface FuzzCase {
	name: string;
	/** Send it before the join (just after the hello) instead of after. */
	beforeJoin: boolean;
	frame: (guest: RawGuest) => { data: Buffer | string; binary: boolean };
}

const KINDS = ["random", "flip", "truncate", "extend", "renumber", "reflect", "wrong-key", "version", "empty", "text", "oversize"] as const;

function corpus(): FuzzCase[] {
	const rng = generator(SEED);
	const cases: FuzzCase[] = [];
	for (let i = 0; i < CASES; i++) {
		const kind = KINDS[i % KINDS.length]!;
		const beforeJoin = rng.int(4) === 0;
		const payload = Buffer.from(JSON.stringify(rng.pick([{ type: "prompt", message: "fuzz" }, { type: "abort" }, { type: "collab_join" }])));
		const flips = Array.from({ length: 1 + rng.int(3) }, () => [rng.int(1 << 20), 1 + rng.int(255)] as const);
		const length = rng.int(1 << 20);
		const extra = rng.bytes(1 + rng.int(32));
		const junk = rng.bytes(rng.int(2) === 0 ? rng.int(64) : rng.int(4096));
		const seqShift = 1 + rng.int(1000);
		const version = 2 + rng.int(254);
		const text = rng.bytes(1 + rng.int(200)).toString("base64");
		/** A frame the relay would accept next, to be spoiled. */
		const valid = (guest: RawGuest) => Buffer.from(guest.channel!.seal(payload));
		const make = (): FuzzCase["frame"] => {
			switch (kind) {
				case "random":
					return () => ({ data: junk, binary: true });
				case "flip":
					return (guest) => {
						const frame = valid(guest);
						for (const [at, mask] of flips) frame[at % frame.length]! ^= mask;
						return { data: frame, binary: true };
					};
				case "truncate":
					return (guest) => {
						const frame = valid(guest);
						return { data: frame.subarray(0, length % frame.length), binary: true };
					};
				case "extend":
					return (guest) => ({ data: Buffer.concat([valid(guest), extra]), binary: true });
				case "renumber":
					return (guest) => {
						const frame = valid(guest);
						frame.writeBigUInt64BE(BigInt(guest.channel!.sent - 1 + seqShift), 2);
						return { data: frame, binary: true };
					};
				case "reflect":
					return (guest) => {
						// A frame as the host would send it, numbered like the guest's next one.
						const keys = deriveDirectionKeys(guest.link.key, Buffer.alloc(16), Buffer.alloc(16), HOST_TO_GUEST);
						return { data: sealFrame(keys, HOST_TO_GUEST, guest.channel!.sent, guest.link.roomId, payload), binary: true };
					};
				case "wrong-key":
					return (guest) => {
						const keys = deriveDirectionKeys(randomBytes(32), Buffer.alloc(16), Buffer.alloc(16), GUEST_TO_HOST);
						return { data: sealFrame(keys, GUEST_TO_HOST, guest.channel!.sent, guest.link.roomId, payload), binary: true };
					};
				case "version":
					return (guest) => {
						const frame = valid(guest);
						frame[0] = version;
						return { data: frame, binary: true };
					};
				case "empty":
					return () => ({ data: Buffer.alloc(0), binary: true });
				case "text":
					return () => ({ data: text, binary: false });
				case "oversize":
					return () => ({ data: Buffer.alloc(MAX_GUEST_FRAME_BYTES + 1 + rng.int(1024)), binary: true });
			}
		};
		cases.push({ name: `#${i} ${kind}${beforeJoin ? " before the join" : ""}`, beforeJoin, frame: make() });
	}
	return cases;
}

const REASONS: Record<number, string[]> = {
	1003: ["collaboration frames must be binary (encrypted)"],
	1008: ["invalid collaboration frame"],
	1009: [""],
};

let harness: CollabHarness;
let host: TestClient;

before(async () => {
	harness = await startCollabHarness({ maxParticipants: BATCH + 1 });
	host = await TestClient.connect(harness.wsUrl);
});

after(async () => {
	host?.socket.terminate();
	await harness?.close();
});

test(`a seeded corpus of ${CASES} bad frames: each closes its guest cleanly, and nothing else is affected`, async () => {
	const room = await host.ok({ type: "collab_start" });
	const witness = await RawGuest.join(room.viewLink);
	const cases = corpus();
	for (let start = 0; start < cases.length; start += BATCH) {
		await Promise.all(
			cases.slice(start, start + BATCH).map(async (fuzz) => {
				const link = start % 2 === 0 ? room.controlLink : room.viewLink;
				const guest = fuzz.beforeJoin ? await RawGuest.connect(link) : await RawGuest.join(link);
				await guest.waitFor(() => guest.hello, "hello");
				const received = guest.messages.length;
				const { data, binary } = fuzz.frame(guest);
				guest.sendRaw(data, binary);
				const closed = await guest.waitForClose();
				assert.ok(REASONS[closed.code], `${fuzz.name}: closed with ${closed.code} ${closed.reason}`);
				assert.ok(REASONS[closed.code]!.includes(closed.reason), `${fuzz.name}: reason "${closed.reason}"`);
				assert.equal(guest.messages.length, received, `${fuzz.name}: nothing more was sent to it`);
			}),
		);
	}
	assert.deepEqual(harness.received, [], "no fuzzed frame reached the session");
	// The host's session and the guest that behaved are untouched.
	assert.equal((await host.ok({ type: "ping" })).pong, true);
	harness.publish(PRIMARY_SESSION, { type: "agent_start" });
	await witness.waitForMessage((m) => m.type === "agent_start");
	assert.equal(witness.closed, undefined);
	const status = await host.ok({ type: "collab_status" });
	assert.deepEqual([status.rooms[0].controlGuests, status.rooms[0].viewGuests], [0, 1], "every fuzzed guest left its seat");
	const logs = harness.logs.join("\n");
	for (const link of [room.controlLink, room.viewLink]) {
		const key = link.split("=")[1]!;
		assert.ok(!logs.includes(key));
		assert.ok(!logs.includes(capabilityOf(Buffer.from(key, "base64url")).toString("base64url")));
	}
	witness.close();
});
