/**
 * The entry of collab-browser-bundle.ts: the page's collaboration modules on `globalThis.skiffCollab` for a browser
 * test, with a known-answer check that runs inside the page (helpers defined here, not in the test's callbacks).
 */
import * as crypto from "../../web/src/collab/crypto.js";
import { GuestConnection } from "../../web/src/collab/guest-connection.js";
import { parseGuestLink, takeGuestLink } from "../../web/src/collab/guest-link.js";
import { decodeBase64Url, encodeBase64Url, type FrameDirection } from "../../src/shared/collab-wire.js";
import type { VectorCase } from "./collab-vectors.js";

const fromHex = (hex: string) => new Uint8Array((hex.match(/../g) ?? []).map((pair) => Number.parseInt(pair, 16)));
const toHex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
const fromB64 = (text: string, length: number) => decodeBase64Url(text, length)!;

/** What this browser's WebCrypto computes for each vector case, in the fixture's terms. */
async function computeVectors(cases: VectorCase[]) {
	const out = [];
	for (const c of cases) {
		const key = fromB64(c.roleKey, 32);
		const client = fromB64(c.clientNonce, 16);
		const server = fromB64(c.serverNonce, 16);
		const g2h = await crypto.deriveDirectionBytes(key, client, server, 1);
		const h2g = await crypto.deriveDirectionBytes(key, client, server, 2);
		const frames = [];
		for (const f of c.frames) {
			const direction = f.direction as FrameDirection;
			const keys = await crypto.deriveDirectionKeys(key, client, server, direction);
			const sealed = toHex(await crypto.sealFrame(keys, direction, f.seq, c.roomId, fromHex(f.plaintext)));
			const opened = toHex(await crypto.openFrame(keys, direction, f.seq, c.roomId, fromHex(f.frame), 1 << 20));
			const altered = fromHex(f.frame);
			altered[altered.length - 1]! ^= 1;
			const tampered = await crypto.openFrame(keys, direction, f.seq, c.roomId, altered, 1 << 20).then(
				() => "accepted",
				(error: crypto.FrameRejected) => error.fault,
			);
			frames.push({ sealed, opened, tampered });
		}
		out.push({
			capability: encodeBase64Url(await crypto.capabilityOf(key)),
			guestToHost: { key: toHex(g2h.key), iv: toHex(g2h.iv) },
			hostToGuest: { key: toHex(h2g.key), iv: toHex(h2g.iv) },
			frames,
		});
	}
	return out;
}

(globalThis as { skiffCollab?: unknown }).skiffCollab = { crypto, GuestConnection, parseGuestLink, takeGuestLink, computeVectors };
