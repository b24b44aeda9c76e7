/**
 * The guest page's connection module (web/src/collab/guest-connection.ts, WebCrypto on Node's crypto.subtle,
 * `ws` as its WebSocket) against the real relay: states, snapshot and events, commands and refusals, reconnects
 * with new keys, and the ends it reports (room stopped, room full, bad link, no WebCrypto).
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import WebSocket from "ws";
import type { SkiffEvent } from "../../src/client/index.js";
import {
	DETAIL_FULL,
	DETAIL_NO_WEBCRYPTO,
	DETAIL_NOT_JOINED,
	DETAIL_STOPPED,
	GuestConnection,
	type GuestSnapshot,
	type GuestSocketConstructor,
	type GuestState,
} from "../../web/src/collab/guest-connection.js";
import { type GuestLink, parseGuestLink } from "../../web/src/collab/guest-link.js";
import { type CollabHarness, PRIMARY_SESSION, startCollabHarness } from "../support/collab-harness.js";
import { TestClient } from "../support/ws-client.js";

let harness: CollabHarness;
let host: TestClient;
const guests: GuestConnection[] = [];
/** Every socket the guests opened, so a test can cut one. */
const sockets: WebSocket[] = [];

class TrackedWebSocket extends WebSocket {
	constructor(url: string, protocols: string[]) {
		super(url, protocols);
		sockets.push(this);
	}
}

beforeEach(async () => {
	harness = await startCollabHarness();
	host = await TestClient.connect(harness.wsUrl);
});

afterEach(async () => {
	for (const guest of guests.splice(0)) guest.leave();
	sockets.splice(0);
	host.socket.terminate();
	await harness.close();
});

/** A guest of the link, recording what it sees, with reconnects at once. */
function guestOf(link: string, options: { maxRetries?: number } = {}) {
	const parsed = parseGuestLink(link);
	assert.ok(parsed.ok);
	const guest = new GuestConnection(parsed.link, {
		WebSocket: TrackedWebSocket as unknown as GuestSocketConstructor,
		retryDelay: () => 0,
		maxRetries: options.maxRetries,
	});
	guests.push(guest);
	const seen = { states: [] as GuestState[], snapshots: [] as GuestSnapshot[], events: [] as SkiffEvent[] };
	const waiters = new Set<() => void>();
	const wake = () => {
		for (const check of [...waiters]) check();
	};
	guest.onState((s) => (seen.states.push(s), wake()));
	guest.onSnapshot((s) => (seen.snapshots.push(s), wake()));
	guest.onEvent((e) => (seen.events.push(e), wake()));
	/** Resolves once `probe` holds, checked whenever the guest reports something (a guard fails a hung test). */
	const until = <T>(probe: () => T | undefined, what: string) =>
		new Promise<T>((resolve, reject) => {
			const check = () => {
				const value = probe();
				if (value === undefined) return;
				waiters.delete(check);
				clearTimeout(guard);
				resolve(value);
			};
			const guard = setTimeout(() => {
				waiters.delete(check);
				reject(new Error(`timed out waiting for ${what} (state ${JSON.stringify(guest.state)})`));
			}, 15_000);
			waiters.add(check);
			check();
		});
	const status = (s: GuestState["status"]) => until(() => (guest.state.status === s ? guest.state : undefined), s);
	return { guest, seen, until, status, link: parsed.link as GuestLink };
}

test("a control guest connects, gets the snapshot then events, and its prompt reaches the shared session", async () => {
	harness.transcripts.set(PRIMARY_SESSION, [{ role: "user", content: "before", timestamp: 1 }]);
	const room = await host.ok({ type: "collab_start" });
	const { guest, seen, until, status } = guestOf(room.controlLink);
	assert.equal(guest.state.status, "connecting");
	guest.start();
	const connected = await status("connected");
	assert.deepEqual(connected, { status: "connected", role: "control", roomId: room.roomId, detail: undefined, canCommand: true });
	assert.equal(seen.snapshots.length, 1);
	assert.deepEqual(seen.snapshots[0]!.messages, [{ role: "user", content: "before", timestamp: 1 }]);
	harness.publish(PRIMARY_SESSION, { type: "agent_start" });
	const event = await until(() => seen.events.find((e) => e.type === "agent_start"), "agent_start");
	assert.ok(event.seq > seen.snapshots[0]!.seq);
	assert.deepEqual(await guest.prompt("from the guest"), { type: "response", id: "g1", command: "prompt", success: true });
	assert.deepEqual(await guest.abort(), { type: "response", id: "g2", command: "abort", success: true });
	assert.deepEqual(harness.received, [
		{ type: "prompt", sessionId: PRIMARY_SESSION, message: "from the guest" },
		{ type: "abort", sessionId: PRIMARY_SESSION },
	]);
	assert.deepEqual(
		seen.states.map((s) => s.status),
		["connected"],
	);
});

test("a view guest cannot command: the relay refuses, the guest stays connected", async () => {
	const room = await host.ok({ type: "collab_start" });
	const { guest, status } = guestOf(room.viewLink);
	guest.start();
	assert.equal((await status("connected")).canCommand, false);
	const refused = await guest.steer("let me steer");
	assert.deepEqual([refused.success, refused.code], [false, "forbidden"]);
	assert.equal(guest.state.status, "connected");
	assert.deepEqual(harness.received, []);
	await assert.rejects(guest.prompt("x".repeat(300_000)), /too long to send/, "a message over the frame limit is refused in the page");
	assert.equal(guest.state.status, "connected");
});

test("a dropped connection is made again with new keys and a new snapshot", async () => {
	const room = await host.ok({ type: "collab_start" });
	const { guest, seen, until, status } = guestOf(room.controlLink);
	guest.start();
	await status("connected");
	const protocolBefore = sockets[0]!.protocol;
	sockets[0]!.terminate();
	await until(() => (sockets.length === 2 && guest.state.status === "connected" && seen.snapshots.length === 2 ? true : undefined), "reconnected");
	assert.ok(seen.states.some((s) => s.status === "reconnecting"));
	assert.notEqual(sockets[1]!.protocol, protocolBefore, "a new nonce each time");
	assert.equal(sockets[1]!.protocol.split(".")[1], protocolBefore.split(".")[1], "the same capability");
	assert.equal((await guest.prompt("again")).success, true);
});

test("stopping the room ends the guest for good and forgets its key", async () => {
	const room = await host.ok({ type: "collab_start" });
	const { guest, status, link } = guestOf(room.controlLink);
	guest.start();
	await status("connected");
	await host.ok({ type: "collab_stop", roomId: room.roomId });
	assert.deepEqual(await status("ended"), { status: "ended", role: "control", roomId: room.roomId, detail: DETAIL_STOPPED, canCommand: false });
	assert.ok(link.key.every((byte) => byte === 0));
	await assert.rejects(guest.prompt("too late"), /Not connected \(ended\)/);
	assert.equal(sockets.length, 1, "no reconnect after the room stopped");
});

test("a link to no room, or a wrong key, fails at once; a full room says so", async () => {
	const room = await host.ok({ type: "collab_start" });
	const wrongKey = room.controlLink.replace(/#c=.*/, `#c=${Buffer.alloc(32, 1).toString("base64url")}`);
	const wrong = guestOf(wrongKey);
	wrong.guest.start();
	assert.equal((await wrong.status("failed")).detail, DETAIL_NOT_JOINED);

	await harness.close();
	harness = await startCollabHarness({ maxParticipants: 1 });
	host = await TestClient.connect(harness.wsUrl);
	const small = await host.ok({ type: "collab_start" });
	const first = guestOf(small.viewLink);
	first.guest.start();
	await first.status("connected");
	const second = guestOf(small.viewLink);
	second.guest.start();
	assert.equal((await second.status("failed")).detail, DETAIL_FULL);
});

test("without WebCrypto (not a secure context) the guest fails before connecting", async () => {
	const room = await host.ok({ type: "collab_start" });
	const { guest, status } = guestOf(room.viewLink);
	const original = Object.getOwnPropertyDescriptor(globalThis, "crypto")!;
	Object.defineProperty(globalThis, "crypto", { value: undefined, configurable: true });
	try {
		guest.start();
		assert.equal((await status("failed")).detail, DETAIL_NO_WEBCRYPTO);
	} finally {
		Object.defineProperty(globalThis, "crypto", original);
	}
	assert.equal(sockets.length, 0);
});
