/**
 * The cryptography of collaboration with node:crypto (docs/collab.md): room secrets, capabilities, and one
 * end of an encrypted guest connection. Each direction has its own key and IV from HKDF-SHA256 (the role
 * key, a salt both ends contribute to, a direction label); frames are AES-256-GCM with the sequence number
 * in the nonce and the associated data, and must arrive exactly in order. The page does the same with
 * WebCrypto (web/src/collab/crypto.ts); test/fixtures/collab-vectors.json checks both.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import {
	CAPABILITY_BYTES,
	capabilityInput,
	checkFrame,
	connectionSalt,
	DERIVED_IV_BYTES,
	DERIVED_KEY_BYTES,
	directionInfo,
	encodeBase64Url,
	FRAME_TAG_BYTES,
	type FrameDirection,
	FrameRejected,
	frameAad,
	frameHeader,
	frameNonce,
	GUEST_TO_HOST,
	HOST_TO_GUEST,
	ReceiveOrder,
	ROLE_KEY_BYTES,
	ROOM_ID_BYTES,
} from "../shared/collab-wire.js";

/** The frame's checks and refusal are the wire's (src/shared/collab-wire.ts), the same on the page. */
export { type FrameFault, FrameRejected } from "../shared/collab-wire.js";

/** A new room's id and its two role keys. */
export function newRoomSecrets(): { roomId: string; controlKey: Buffer; viewKey: Buffer } {
	return { roomId: encodeBase64Url(randomBytes(ROOM_ID_BYTES)), controlKey: randomBytes(ROLE_KEY_BYTES), viewKey: randomBytes(ROLE_KEY_BYTES) };
}

/** The capability a guest presents for a role key: SHA-256 of the label and the key. */
export function capabilityOf(roleKey: Uint8Array): Buffer {
	return createHash("sha256").update(capabilityInput(roleKey)).digest();
}

/** Whether two capabilities are equal, in time that does not depend on where they differ. */
export function sameCapability(a: Uint8Array, b: Uint8Array): boolean {
	return a.length === CAPABILITY_BYTES && b.length === CAPABILITY_BYTES && timingSafeEqual(a, b);
}

/** The key and IV of one direction of one connection. */
export interface DirectionKeys {
	key: Buffer;
	iv: Buffer;
}

export function deriveDirectionKeys(roleKey: Uint8Array, clientNonce: Uint8Array, serverNonce: Uint8Array, direction: FrameDirection): DirectionKeys {
	const bytes = Buffer.from(hkdfSync("sha256", roleKey, connectionSalt(clientNonce, serverNonce), directionInfo(direction), DERIVED_KEY_BYTES + DERIVED_IV_BYTES));
	return { key: bytes.subarray(0, DERIVED_KEY_BYTES), iv: bytes.subarray(DERIVED_KEY_BYTES) };
}

/** One frame: header || AES-256-GCM(plaintext) || tag. */
export function sealFrame(keys: DirectionKeys, direction: FrameDirection, seq: number, roomId: string, plaintext: Uint8Array): Buffer {
	const header = frameHeader(direction, seq);
	const cipher = createCipheriv("aes-256-gcm", keys.key, frameNonce(keys.iv, seq), { authTagLength: FRAME_TAG_BYTES });
	cipher.setAAD(frameAad(header, roomId));
	return Buffer.concat([header, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

/** The plaintext of a frame expected at `seq` in `direction`; throws FrameRejected otherwise. */
export function openFrame(keys: DirectionKeys, direction: FrameDirection, seq: number, roomId: string, frame: Uint8Array, maxBytes: number): Buffer {
	const checked = checkFrame(frame, direction, seq, roomId, maxBytes);
	const decipher = createDecipheriv("aes-256-gcm", keys.key, frameNonce(keys.iv, seq), { authTagLength: FRAME_TAG_BYTES });
	decipher.setAAD(checked.aad);
	decipher.setAuthTag(checked.tag);
	try {
		return Buffer.concat([decipher.update(checked.ciphertext), decipher.final()]);
	} catch {
		throw new FrameRejected("authentication");
	}
}

/**
 * One end of one guest connection: it seals what it sends and opens what it receives, each with its own
 * sequence from 0. The first frame refused ends the channel: every later one is refused too, so a caller
 * that keeps reading cannot be walked past a gap.
 */
export class CollabChannel {
	private sendSeq = 0;
	private readonly received = new ReceiveOrder();

	private constructor(
		private readonly roomId: string,
		private readonly sending: { keys: DirectionKeys; direction: FrameDirection },
		private readonly receiving: { keys: DirectionKeys; direction: FrameDirection; maxBytes: number },
	) {}

	/** The host's end: it sends host-to-guest frames and receives guest-to-host ones of at most `maxGuestFrameBytes`. */
	static host(roleKey: Uint8Array, roomId: string, clientNonce: Uint8Array, serverNonce: Uint8Array, maxGuestFrameBytes: number): CollabChannel {
		return new CollabChannel(
			roomId,
			{ keys: deriveDirectionKeys(roleKey, clientNonce, serverNonce, HOST_TO_GUEST), direction: HOST_TO_GUEST },
			{ keys: deriveDirectionKeys(roleKey, clientNonce, serverNonce, GUEST_TO_HOST), direction: GUEST_TO_HOST, maxBytes: maxGuestFrameBytes },
		);
	}

	/** A guest's end (Node guests and tests; the page has its own in WebCrypto). */
	static guest(roleKey: Uint8Array, roomId: string, clientNonce: Uint8Array, serverNonce: Uint8Array, maxHostFrameBytes: number): CollabChannel {
		return new CollabChannel(
			roomId,
			{ keys: deriveDirectionKeys(roleKey, clientNonce, serverNonce, GUEST_TO_HOST), direction: GUEST_TO_HOST },
			{ keys: deriveDirectionKeys(roleKey, clientNonce, serverNonce, HOST_TO_GUEST), direction: HOST_TO_GUEST, maxBytes: maxHostFrameBytes },
		);
	}

	/** Frames sealed so far (the next one's seq). */
	get sent(): number {
		return this.sendSeq;
	}

	seal(plaintext: Uint8Array): Buffer {
		return sealFrame(this.sending.keys, this.sending.direction, this.sendSeq++, this.roomId, plaintext);
	}

	open(frame: Uint8Array): Buffer {
		return this.received.open((seq) => openFrame(this.receiving.keys, this.receiving.direction, seq, this.roomId, frame, this.receiving.maxBytes));
	}
}
