/**
 * Nobody's failures lock anyone out. Behind a TLS proxy every client has the proxy's address, so failures
 * counted per address alone let anyone who reaches the proxy keep the host out of its own /rpc and /ws, and
 * its guests out of their rooms. The throttle counts failures per address and kind of credential (the
 * control plane's token; a guest's room capability), and a throttled address's attempts are still checked:
 * a valid credential is admitted, only failing attempts get 429. Each case comes from a fresh client address
 * (any 127.x.y.z works on Linux), standing for the proxy's one address.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { capabilityOf } from "../../../src/collab/channel.js";
import { guestSubprotocol } from "../../../src/shared/collab-wire.js";
import { parseLink } from "../../support/collab-guest.js";
import { type AdmittedRoute, admittedRequest, exchange, freshAddresses, startWireListener, type WireListener } from "./listener-wire.js";

const TOKEN = "lock-out-test-token";
const GUESS = "wrong-guess-4711";
const FAILURES = 3;
const WINDOW_MS = 60_000;
const BEARER = `Authorization: Bearer ${TOKEN}\r\n`;
const WRONG_BEARER = `Authorization: Bearer ${GUESS}\r\n`;
const CONTROL_ROUTES: readonly AdmittedRoute[] = ["rpc", "ws", "export"];
/** What each route answers an admitted request here (a download fails: the fake runtime's sessions have no file). */
const ADMITTED: Record<AdmittedRoute, number> = { rpc: 200, ws: 101, export: 500, guest: 101 };

let guarded: WireListener;
let open: WireListener;
let now = 7_000_000;
const freshAddress = freshAddresses();

before(async () => {
	const limits = { authFailuresPerWindow: FAILURES, authWindowMs: WINDOW_MS };
	guarded = await startWireListener({ auth: { loopback: true, token: TOKEN }, collab: true, limits, now: () => now });
	open = await startWireListener({ collab: true, limits, now: () => now });
});
after(async () => {
	await guarded.close();
	await open.close();
});

/** A room of `wire` and the header lines that join it: with its control key, or with a wrong capability. */
function roomOf(wire: WireListener): { roomId: string; valid: () => string; wrong: () => string } {
	const { roomId, key } = parseLink(wire.rooms!.start("primary").controlLink);
	const offer = (capability: Uint8Array) => `Sec-WebSocket-Protocol: ${guestSubprotocol(capability, randomBytes(16))}\r\n`;
	return { roomId, valid: () => offer(capabilityOf(key)), wrong: () => offer(randomBytes(32)) };
}

async function status(wire: WireListener, route: AdmittedRoute, extra: string, from: string, roomId?: string): Promise<number> {
	const answer = await exchange(wire.url, admittedRequest(route, wire.host, extra, roomId), from);
	if (answer.status === 429) assert.equal(answer.headers["retry-after"], String(WINDOW_MS / 1000), "a 429 says when to try again");
	return answer.status;
}

test("failed collaboration joins from an address keep neither the host nor a valid guest out", async () => {
	const address = freshAddress();
	const room = roomOf(guarded);
	const other = roomOf(guarded);
	for (let i = 0; i < FAILURES; i++) assert.equal(await status(guarded, "guest", room.wrong(), address, room.roomId), 401);
	assert.equal(await status(guarded, "guest", room.wrong(), address, room.roomId), 429, "the guesser is throttled");
	assert.equal(await status(guarded, "guest", other.wrong(), address, other.roomId), 429, "in every room: a guesser gains nothing by moving");

	for (const route of CONTROL_ROUTES) assert.equal(await status(guarded, route, BEARER, address), ADMITTED[route], `the host's token on ${route}`);
	assert.equal(await status(guarded, "rpc", WRONG_BEARER, address), 401, "another kind's failures do not throttle a wrong token");
	assert.equal(await status(guarded, "guest", room.valid(), address, room.roomId), 101, "a valid guest of the room guessed at");
	assert.equal(await status(guarded, "guest", other.valid(), address, other.roomId), 101, "a valid guest of another room");
});

test("failed token attempts from an address keep neither the owner's token nor a valid guest out; only failing attempts get 429", async () => {
	const address = freshAddress();
	const room = roomOf(guarded);
	for (let i = 0; i < FAILURES; i++) assert.equal(await status(guarded, "rpc", WRONG_BEARER, address), 401);
	for (const route of CONTROL_ROUTES) {
		assert.equal(await status(guarded, route, WRONG_BEARER, address), 429, `a wrong token on ${route}`);
		assert.equal(await status(guarded, route, "", address), 429, `no token on ${route}`);
		assert.equal(await status(guarded, route, BEARER, address), ADMITTED[route], `the owner's token on ${route}`);
	}
	assert.equal(await status(guarded, "ws", `Sec-WebSocket-Protocol: skiff-auth.${TOKEN}\r\n`, address), 101, "the token as a subprotocol");
	assert.equal(await status(guarded, "guest", room.valid(), address, room.roomId), 101, "a valid guest");
	assert.equal(await status(guarded, "guest", room.wrong(), address, room.roomId), 401, "another kind's failures do not throttle a wrong capability");

	now += WINDOW_MS;
	assert.equal(await status(guarded, "rpc", WRONG_BEARER, address), 401, "the window ends: a wrong token is told 401 again");
});

test("a tokenless loopback listener admits its own clients whatever others' failures from their address", async () => {
	const address = freshAddress();
	const room = roomOf(open);
	const crossSite = "Origin: http://evil.example\r\n";
	for (let i = 0; i < FAILURES; i++) {
		assert.equal(await status(open, "rpc", crossSite, address), 403);
		assert.equal(await status(open, "guest", room.wrong(), address, room.roomId), 401);
	}
	assert.equal(await status(open, "ws", crossSite, address), 429, "the failing page is throttled");
	for (const route of CONTROL_ROUTES) assert.equal(await status(open, route, "", address), ADMITTED[route], `a local client on ${route}`);
	assert.equal(await status(open, "rpc", `Origin: http://${open.host}\r\n`, address), 200, "the host's own page");
	assert.equal(await status(open, "guest", room.valid(), address, room.roomId), 101, "a valid guest");
});

test("the throttle's engaging is logged once per kind, naming the kind, its routes and the address; throttled attempts add no lines", async () => {
	const address = freshAddress();
	const room = roomOf(guarded);
	for (let i = 0; i < FAILURES + 5; i++) {
		await status(guarded, "ws", WRONG_BEARER, address);
		await status(guarded, "guest", room.wrong(), address, room.roomId);
	}
	const mine = guarded.logs.filter((line) => line.includes(` ${address} `) || line.includes(`from ${address} `));
	assert.equal(mine.filter((line) => /authentication failed/.test(line)).length, 2 * FAILURES, mine.join("\n"));
	const engaged = mine.filter((line) => / 429 /.test(line));
	assert.equal(engaged.length, 2, mine.join("\n"));
	assert.match(engaged[0]!, /control-plane authentication .*\/ws, \/rpc, \/export and \/attachments/);
	assert.match(engaged[1]!, /collaboration authentication .*\/collab\/ws\/<roomId>/);
	for (const line of guarded.logs) assert.doesNotMatch(line, new RegExp(`${TOKEN}|${GUESS}|skiff-collab-v1|Bearer`), line);
});
