/**
 * The cryptography of a collaboration guest with WebCrypto (crypto.subtle), to the spec of docs/collab.md:
 * the capability of a role key, the per-connection keys of each direction (HKDF-SHA256), and AES-256-GCM
 * frames whose sequence numbers must arrive exactly in order. The service does the same with node:crypto
 * (src/collab/channel.ts); test/fixtures/collab-vectors.json checks both. WebCrypto exists only in a secure
 * context (https, or http on localhost).
 */
import {
	capabilityInput,
	checkFrame,
	connectionSalt,
	DERIVED_IV_BYTES,
	DERIVED_KEY_BYTES,
	directionInfo,
	FRAME_HEADER_BYTES,
	FRAME_TAG_BYTES,
	type FrameDirection,
	FrameRejected,
	frameAad,
	frameHeader,
	frameNonce,
	GUEST_TO_HOST,
	HOST_TO_GUEST,
	ReceiveOrder,
} from "../../../src/shared/collab-wire.js";

type Subtle = typeof globalThis.crypto.subtle;
/** An AES-GCM key as WebCrypto holds it (non-extractable). */
export type AesKey = Awaited<ReturnType<Subtle["importKey"]>>;

/** The frame's checks and refusal are the wire's (src/shared/collab-wire.ts), the same in the service. */
export { type FrameFault, FrameRejected } from "../../../src/shared/collab-wire.js";

/** WebCrypto, or undefined where the page is not a secure context (plain http on a LAN address). */
export function subtleCrypto(): Subtle | undefined {
	return globalThis.crypto?.subtle;
}

function subtle(): Subtle {
	const found = subtleCrypto();
	if (!found) throw new Error("WebCrypto is not available: open the link over https (or on localhost)");
	return found;
}

/** A copy of `bytes` in its own ArrayBuffer, as WebCrypto's types want. */
function own(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
	return new Uint8Array(bytes);
}

/** SHA-256 of the capability label and the role key: what the guest presents instead of the key. */
export async function capabilityOf(roleKey: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
	return new Uint8Array(await subtle().digest("SHA-256", capabilityInput(roleKey)));
}

/** The raw bytes HKDF derives for one direction: the AES key, then the IV (for known-answer tests). */
export async function deriveDirectionBytes(
	roleKey: Uint8Array,
	clientNonce: Uint8Array,
	serverNonce: Uint8Array,
	direction: FrameDirection,
): Promise<{ key: Uint8Array<ArrayBuffer>; iv: Uint8Array<ArrayBuffer> }> {
	const ikm = await subtle().importKey("raw", own(roleKey), "HKDF", false, ["deriveBits"]);
	const bits = await subtle().deriveBits(
		{ name: "HKDF", hash: "SHA-256", salt: connectionSalt(clientNonce, serverNonce), info: directionInfo(direction) },
		ikm,
		(DERIVED_KEY_BYTES + DERIVED_IV_BYTES) * 8,
	);
	const bytes = new Uint8Array(bits);
	return { key: bytes.slice(0, DERIVED_KEY_BYTES), iv: bytes.slice(DERIVED_KEY_BYTES) };
}

/** The key (non-extractable) and IV of one direction of one connection. */
export interface DirectionKeys {
	key: AesKey;
	iv: Uint8Array;
}

export async function deriveDirectionKeys(roleKey: Uint8Array, clientNonce: Uint8Array, serverNonce: Uint8Array, direction: FrameDirection): Promise<DirectionKeys> {
	const { key, iv } = await deriveDirectionBytes(roleKey, clientNonce, serverNonce, direction);
	const aes = await subtle().importKey("raw", key, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
	key.fill(0);
	return { key: aes, iv };
}

/** One frame: header || AES-256-GCM(plaintext) || tag. */
export async function sealFrame(keys: DirectionKeys, direction: FrameDirection, seq: number, roomId: string, plaintext: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
	const header = frameHeader(direction, seq);
	const sealed = await subtle().encrypt(
		{ name: "AES-GCM", iv: frameNonce(keys.iv, seq), additionalData: frameAad(header, roomId), tagLength: FRAME_TAG_BYTES * 8 },
		keys.key,
		own(plaintext),
	);
	const frame = new Uint8Array(FRAME_HEADER_BYTES + sealed.byteLength);
	frame.set(header);
	frame.set(new Uint8Array(sealed), FRAME_HEADER_BYTES);
	return frame;
}

/** The plaintext of a frame expected at `seq` in `direction`; rejects with FrameRejected otherwise. */
export async function openFrame(
	keys: DirectionKeys,
	direction: FrameDirection,
	seq: number,
	roomId: string,
	frame: Uint8Array,
	maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
	const checked = checkFrame(frame, direction, seq, roomId, maxBytes);
	try {
		const plain = await subtle().decrypt(
			{ name: "AES-GCM", iv: frameNonce(keys.iv, seq), additionalData: checked.aad, tagLength: FRAME_TAG_BYTES * 8 },
			keys.key,
			own(checked.sealed),
		);
		return new Uint8Array(plain);
	} catch {
		throw new FrameRejected("authentication");
	}
}

/**
 * A guest's end of one connection. Sealing and opening are asynchronous in WebCrypto, so each direction is
 * a chain: frames are sealed (and their promises settle) in the order `seal` was called, and opened in the
 * order they arrived. The first frame refused ends the channel.
 */
export class GuestChannel {
	private sendSeq = 0;
	private readonly received = new ReceiveOrder();
	private sending: Promise<unknown> = Promise.resolve();
	private receiving: Promise<unknown> = Promise.resolve();

	private constructor(
		private readonly roomId: string,
		private readonly outbound: DirectionKeys,
		private readonly inbound: DirectionKeys,
		private readonly maxHostFrameBytes: number,
	) {}

	static async create(roleKey: Uint8Array, roomId: string, clientNonce: Uint8Array, serverNonce: Uint8Array, maxHostFrameBytes: number): Promise<GuestChannel> {
		const [outbound, inbound] = await Promise.all([
			deriveDirectionKeys(roleKey, clientNonce, serverNonce, GUEST_TO_HOST),
			deriveDirectionKeys(roleKey, clientNonce, serverNonce, HOST_TO_GUEST),
		]);
		return new GuestChannel(roomId, outbound, inbound, maxHostFrameBytes);
	}

	seal(plaintext: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
		const seq = this.sendSeq++;
		const sealed = this.sending.then(() => sealFrame(this.outbound, GUEST_TO_HOST, seq, this.roomId, plaintext));
		this.sending = sealed.catch(() => undefined);
		return sealed;
	}

	open(frame: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
		const opened = this.receiving.then(() =>
			this.received.open((seq) => openFrame(this.inbound, HOST_TO_GUEST, seq, this.roomId, frame, this.maxHostFrameBytes)),
		);
		this.receiving = opened.catch(() => undefined);
		return opened;
	}
}
