/** The guest page's reading of a link: the room, the role, the key; every broken link refused with a clear message. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { BAD_KEY, NO_KEY, NOT_A_LINK, parseGuestLink, socketUrlOf, takeGuestLink } from "../../../web/src/collab/guest-link.js";

const ROOM = "AAECAwQFBgcICQoLDA0ODw";
const KEY = Buffer.alloc(32, 9).toString("base64url");

test("control and view links", () => {
	const control = parseGuestLink(`http://127.0.0.1:8787/collab/ws/${ROOM}#c=${KEY}`);
	assert.ok(control.ok);
	assert.equal(control.link.role, "control");
	assert.equal(control.link.roomId, ROOM);
	assert.equal(control.link.origin, "http://127.0.0.1:8787");
	assert.deepEqual([...control.link.key], [...Buffer.alloc(32, 9)]);
	assert.equal(socketUrlOf(control.link), `ws://127.0.0.1:8787/collab/ws/${ROOM}`);
	const view = parseGuestLink(`https://share.example/collab/ws/${ROOM}#v=${KEY}`);
	assert.ok(view.ok);
	assert.equal(view.link.role, "view");
	assert.equal(socketUrlOf(view.link), `wss://share.example/collab/ws/${ROOM}`);
});

test("broken links are refused with a message that never repeats the key", () => {
	const cases: Array<[string, string]> = [
		[`http://h/collab/ws/${ROOM}`, NO_KEY],
		[`http://h/collab/ws/${ROOM}#`, NO_KEY],
		[`http://h/collab/ws/${ROOM}#x=${KEY}`, BAD_KEY],
		[`http://h/collab/ws/${ROOM}#c=${KEY.slice(1)}`, BAD_KEY],
		[`http://h/collab/ws/${ROOM}#c=${KEY}=`, BAD_KEY],
		[`http://h/collab/ws/${ROOM}#c=${KEY}&v=${KEY}`, BAD_KEY],
		[`http://h/web#c=${KEY}`, NOT_A_LINK],
		[`http://h/collab/ws/short#c=${KEY}`, NOT_A_LINK],
		[`ftp://h/collab/ws/${ROOM}#c=${KEY}`, NOT_A_LINK],
		["not a url", NOT_A_LINK],
	];
	for (const [href, error] of cases) {
		const result = parseGuestLink(href);
		assert.deepEqual(result, { ok: false, error }, href);
		assert.ok(!error.includes(KEY));
	}
});

test("the page's own link is read once and its fragment removed from the address bar", () => {
	const replaced: string[] = [];
	const result = takeGuestLink(
		{ href: `http://h:1/collab/ws/${ROOM}#v=${KEY}`, pathname: `/collab/ws/${ROOM}`, search: "" },
		{ replaceState: (_d, _u, url) => replaced.push(url) },
	);
	assert.ok(result.ok);
	assert.deepEqual(replaced, [`/collab/ws/${ROOM}`]);
});
