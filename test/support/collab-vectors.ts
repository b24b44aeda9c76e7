/** The known-answer vectors of docs/collab.md (test/fixtures/collab-vectors.json, computed in Python). */
import { readFileSync } from "node:fs";

export interface VectorFrame {
	direction: 1 | 2;
	seq: number;
	/** hex */
	plaintext: string;
	/** hex */
	frame: string;
}

export interface VectorCase {
	name: string;
	/** base64url */
	roleKey: string;
	roomId: string;
	clientNonce: string;
	serverNonce: string;
	capability: string;
	subprotocol: string;
	/** hex */
	guestToHost: { key: string; iv: string };
	hostToGuest: { key: string; iv: string };
	frames: VectorFrame[];
}

export const COLLAB_VECTORS: VectorCase[] = (
	JSON.parse(readFileSync(new URL("../fixtures/collab-vectors.json", import.meta.url), "utf8")) as { cases: VectorCase[] }
).cases;

export const fromHex = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, "hex"));
export const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");
export const fromB64 = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text, "base64url"));
