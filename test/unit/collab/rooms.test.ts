/** Rooms: links, limits, capabilities, stopping; and where links point (baseUrl, advertised origin, bind). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { capabilityOf } from "../../../src/collab/channel.js";
import { CollabRooms, type Participant, type RoomChange } from "../../../src/collab/rooms.js";
import { collabLinkOrigin } from "../../../src/listener/advertised-origin.js";
import { CodedError } from "../../../src/shared/errors.js";
import { parseLink } from "../../support/collab-guest.js";

const bound = (address: string, family = "IPv4") => ({ address, family, port: 8787 });

test("link origins: baseUrl, else the advertised origin, else the bound address; a wildcard bind names the flag", () => {
	assert.equal(collabLinkOrigin(undefined, undefined, bound("127.0.0.1")), "http://127.0.0.1:8787");
	assert.equal(collabLinkOrigin(undefined, undefined, bound("::1", "IPv6")), "http://[::1]:8787");
	assert.equal(collabLinkOrigin(undefined, "https://share.example", bound("0.0.0.0")), "https://share.example");
	assert.equal(collabLinkOrigin("HTTPS://Team.Example:443/", "https://share.example", bound("127.0.0.1")), "https://team.example");
	for (const wildcard of [bound("0.0.0.0"), bound("::", "IPv6")]) {
		assert.throws(
			() => collabLinkOrigin(undefined, undefined, wildcard),
			(error: CodedError) => error.code === "unavailable" && /--listen-advertised-origin/.test(error.message) && /baseUrl/.test(error.message),
		);
	}
	assert.throws(
		() => collabLinkOrigin("http://host/path", undefined, bound("127.0.0.1")),
		(error: CodedError) => error.code === "invalid_command" && error.message === 'baseUrl "http://host/path" is not an origin: a path is not allowed (expected http(s)://host[:port])',
	);
	const long = `http://${"a".repeat(5000)}`;
	assert.throws(() => collabLinkOrigin(long, undefined, bound("127.0.0.1")), (error: Error) => error.message.length < 600, "a long baseUrl is not echoed whole");
});

type FakeGuest = Participant & { joined: boolean; closedWith?: [number, string] };

function fakeGuest(role: "control" | "view"): FakeGuest {
	const guest: FakeGuest = { role, joined: false, close: (code, reason) => (guest.closedWith = [code, reason]) };
	return guest;
}

test("a room's links hold two different keys; only their capabilities admit, each to its role", () => {
	const rooms = new CollabRooms({ linkOrigin: () => "http://127.0.0.1:1" });
	const links = rooms.start("s1");
	const control = parseLink(links.controlLink);
	const view = parseLink(links.viewLink);
	assert.equal(control.roomId, links.roomId);
	assert.equal(rooms.authenticate(links.roomId, capabilityOf(control.key))?.role, "control");
	assert.equal(rooms.authenticate(links.roomId, capabilityOf(view.key))?.role, "view");
	assert.equal(rooms.authenticate(links.roomId, control.key), undefined, "the key itself is not a capability");
	assert.equal(rooms.authenticate(links.roomId, new Uint8Array(32)), undefined);
	assert.equal(rooms.authenticate(links.roomId, capabilityOf(control.key).subarray(0, 31)), undefined);
	assert.equal(rooms.authenticate("AAAAAAAAAAAAAAAAAAAAAA", capabilityOf(control.key)), undefined);
	const other = rooms.start("s1");
	assert.notEqual(other.roomId, links.roomId);
	assert.equal(rooms.authenticate(other.roomId, capabilityOf(control.key)), undefined, "keys are per room");
});

test("participants: counted by role once joined, bounded, closed with 4001 when the room stops", () => {
	const changes: RoomChange[] = [];
	const rooms = new CollabRooms({ linkOrigin: () => "http://h:1", maxParticipants: 3 });
	rooms.onChange((change) => changes.push(change));
	const { roomId } = rooms.start("s1");
	const [room] = rooms.list(roomId);
	const a = fakeGuest("control");
	const b = fakeGuest("view");
	const joining = fakeGuest("view");
	assert.ok(room!.admit(a) && room!.admit(b) && room!.admit(joining));
	assert.equal(room!.full, true);
	assert.equal(room!.admit(fakeGuest("view")), false);
	for (const guest of [a, b]) {
		guest.joined = true;
		room!.joined(guest);
	}
	assert.deepEqual([room!.summary().controlGuests, room!.summary().viewGuests], [1, 1], "a guest still joining is not counted");
	room!.leave(b);
	assert.equal(room!.summary().viewGuests, 0);
	const stopped = rooms.stop(roomId);
	assert.equal(stopped.closedGuests, 2);
	assert.deepEqual(a.closedWith, [4001, "collaboration room stopped"]);
	assert.deepEqual(joining.closedWith, [4001, "collaboration room stopped"]);
	assert.equal(b.closedWith, undefined, "a guest that left is not closed again");
	assert.equal(room!.stopped, true);
	assert.equal(room!.admit(fakeGuest("view")), false);
	assert.equal(room!.keyOf("control").every((byte) => byte === 0), true, "the keys are forgotten");
	assert.deepEqual(
		changes.map((c) => [c.stopped, c.room.controlGuests, c.room.viewGuests]),
		[
			[false, 0, 0],
			[false, 1, 0],
			[false, 1, 1],
			[false, 1, 0],
			[true, 0, 0],
		],
	);
	assert.throws(() => rooms.stop(roomId), (e: CodedError) => e.code === "not_found");
});

test("the room limit, and stopAll", () => {
	const rooms = new CollabRooms({ linkOrigin: () => "http://h:1", maxRooms: 2 });
	rooms.start("a");
	rooms.start("b");
	assert.throws(() => rooms.start("c"), (e: CodedError) => e.code === "limit" && /limit 2/.test(e.message));
	rooms.stopAll();
	assert.equal(rooms.size, 0);
	rooms.start("c");
	assert.throws(
		() => new CollabRooms({ linkOrigin: () => { throw new CodedError("unavailable", "no origin"); } }).start("x"),
		(e: CodedError) => e.code === "unavailable",
		"no room without an origin",
	);
});
