/**
 * Known answers of the collaboration cryptography (test/fixtures/collab-vectors.json, computed in Python),
 * checked against both implementations: node:crypto (the service) and WebCrypto (the page's module, run on
 * Node's globalThis.crypto.subtle here; test/browser/collab.test.ts runs it in Chromium).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as node from "../../../src/collab/channel.js";
import { type FrameDirection, guestSubprotocol } from "../../../src/shared/collab-wire.js";
import * as web from "../../../web/src/collab/crypto.js";
import { COLLAB_VECTORS, fromB64, fromHex, toHex } from "../../support/collab-vectors.js";

const keysOf = (c: (typeof COLLAB_VECTORS)[number], direction: number) => (direction === 1 ? c.guestToHost : c.hostToGuest);

test("the vectors are there (a guard against an empty fixture)", () => {
	assert.ok(COLLAB_VECTORS.length >= 2);
	assert.ok(COLLAB_VECTORS.every((c) => c.frames.length > 0));
});

for (const c of COLLAB_VECTORS) {
	const roleKey = fromB64(c.roleKey);
	const clientNonce = fromB64(c.clientNonce);
	const serverNonce = fromB64(c.serverNonce);

	test(`node:crypto: capability, subprotocol, keys and frames (${c.name})`, () => {
		assert.equal(node.capabilityOf(roleKey).toString("base64url"), c.capability);
		assert.equal(guestSubprotocol(node.capabilityOf(roleKey), clientNonce), c.subprotocol);
		for (const direction of [1, 2] as FrameDirection[]) {
			const keys = node.deriveDirectionKeys(roleKey, clientNonce, serverNonce, direction);
			assert.equal(toHex(keys.key), keysOf(c, direction).key);
			assert.equal(toHex(keys.iv), keysOf(c, direction).iv);
		}
		for (const f of c.frames) {
			const keys = node.deriveDirectionKeys(roleKey, clientNonce, serverNonce, f.direction);
			assert.equal(toHex(node.sealFrame(keys, f.direction, f.seq, c.roomId, fromHex(f.plaintext))), f.frame, `seal seq ${f.seq}`);
			assert.equal(toHex(node.openFrame(keys, f.direction, f.seq, c.roomId, fromHex(f.frame), 1 << 20)), f.plaintext, `open seq ${f.seq}`);
		}
	});

	test(`WebCrypto: capability, subprotocol, keys and frames (${c.name})`, async () => {
		assert.equal(Buffer.from(await web.capabilityOf(roleKey)).toString("base64url"), c.capability);
		assert.equal(guestSubprotocol(await web.capabilityOf(roleKey), clientNonce), c.subprotocol);
		for (const direction of [1, 2] as FrameDirection[]) {
			const bytes = await web.deriveDirectionBytes(roleKey, clientNonce, serverNonce, direction);
			assert.equal(toHex(bytes.key), keysOf(c, direction).key);
			assert.equal(toHex(bytes.iv), keysOf(c, direction).iv);
		}
		for (const f of c.frames) {
			const keys = await web.deriveDirectionKeys(roleKey, clientNonce, serverNonce, f.direction);
			assert.equal(toHex(await web.sealFrame(keys, f.direction, f.seq, c.roomId, fromHex(f.plaintext))), f.frame, `seal seq ${f.seq}`);
			assert.equal(toHex(await web.openFrame(keys, f.direction, f.seq, c.roomId, fromHex(f.frame), 1 << 20)), f.plaintext, `open seq ${f.seq}`);
		}
	});
}
