/**
 * The wire of encrypted live collaboration (docs/collab.md), as both ends must agree on it: names, sizes,
 * labels, the frame header, nonce and associated data, the checks a received frame must pass before it is
 * decrypted (and the error that refuses it), and base64url. Pure byte work, no cryptography: the service
 * seals and opens frames with node:crypto (src/collab/channel.ts), the page with WebCrypto
 * (web/src/collab/crypto.ts), and the same known-answer vectors check both.
 */

/** The protocol's name: in the subprotocol, the capability hash and the key derivation labels. */
export const COLLAB_PROTOCOL = "skiff-collab-v1";
/** A guest offers exactly one subprotocol `skiff-collab-v1.<capability>.<clientNonce>` (both base64url). */
export const COLLAB_SUBPROTOCOL_PREFIX = `${COLLAB_PROTOCOL}.`;
/** The first byte of every frame. */
export const FRAME_VERSION = 1;

/** Random bytes of a room id (22 base64url characters). */
export const ROOM_ID_BYTES = 16;
/** Random bytes of each role key (the part of a link after `#c=` or `#v=`, 43 base64url characters). */
export const ROLE_KEY_BYTES = 32;
/** Bytes of a capability: SHA-256 of the capability label and the role key. */
export const CAPABILITY_BYTES = 32;
/** Random bytes each side contributes to a connection's key derivation salt. */
export const CONNECTION_NONCE_BYTES = 16;
/** Bytes derived per direction: an AES-256 key, then a 12-byte IV the sequence number is mixed into. */
export const DERIVED_KEY_BYTES = 32;
export const DERIVED_IV_BYTES = 12;
/** version (1) || direction (1) || seq, unsigned big-endian (8). */
export const FRAME_HEADER_BYTES = 10;
/** The AES-GCM tag at the end of every frame. */
export const FRAME_TAG_BYTES = 16;

/** Largest frame the host sends a guest (header, ciphertext and tag); guests refuse larger ones. */
export const MAX_HOST_FRAME_BYTES = 1024 * 1024;
/** Largest frame a guest may send; the host closes the connection on a larger one (1009). */
export const MAX_GUEST_FRAME_BYTES = 256 * 1024;

/** Which way a frame travels; each direction has its own key, IV and sequence. */
export const GUEST_TO_HOST = 0x01;
export const HOST_TO_GUEST = 0x02;
export type FrameDirection = typeof GUEST_TO_HOST | typeof HOST_TO_GUEST;

/** The roles a link can grant: `control` guests may prompt, steer and abort; `view` guests only watch. */
export const COLLAB_ROLES = ["control", "view"] as const;
export type CollabRole = (typeof COLLAB_ROLES)[number];
/** The fragment letter of each role's link: `#c=<key>` or `#v=<key>`. */
export const ROLE_FRAGMENT: Readonly<Record<CollabRole, string>> = { control: "c", view: "v" };

/** Where guests open the page and connect: `/collab/ws/<roomId>`. */
export const COLLAB_PATH_PREFIX = "/collab/ws/";
/** A room id as it appears in a path: 22 base64url characters. */
export const ROOM_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/** Close codes beyond RFC 6455's, sent by the host to a guest. */
export const CLOSE_ROOM_STOPPED = 4001;
export const CLOSE_ROOM_FULL = 4003;
export const CLOSE_SESSION_UNAVAILABLE = 4004;

/** The close reasons a guest may show as they are (the host never puts anything else in a close reason). */
export const ROOM_STOPPED_REASON = "collaboration room stopped";
export const ROOM_FULL_REASON = "collaboration room is full";
export const INVALID_FRAME_REASON = "invalid collaboration frame";

const encoder = new TextEncoder();

/** `text` as UTF-8 bytes. */
export function utf8(text: string): Uint8Array<ArrayBuffer> {
	return encoder.encode(text) as Uint8Array<ArrayBuffer>;
}

/** The bytes hashed (SHA-256) into a role key's capability: the label, a zero byte, the key. */
export function capabilityInput(roleKey: Uint8Array): Uint8Array<ArrayBuffer> {
	return concat(utf8(`${COLLAB_PROTOCOL} capability`), new Uint8Array([0]), roleKey);
}

/** The HKDF `info` of one direction: `skiff-collab-v1 guest-to-host` or `skiff-collab-v1 host-to-guest`. */
export function directionInfo(direction: FrameDirection): Uint8Array<ArrayBuffer> {
	return utf8(`${COLLAB_PROTOCOL} ${direction === GUEST_TO_HOST ? "guest-to-host" : "host-to-guest"}`);
}

/** The HKDF salt of a connection: the guest's nonce (from its subprotocol), then the host's (from the hello). */
export function connectionSalt(clientNonce: Uint8Array, serverNonce: Uint8Array): Uint8Array<ArrayBuffer> {
	return concat(clientNonce, serverNonce);
}

/** A frame's header; seq must be a safe non-negative integer. */
export function frameHeader(direction: FrameDirection, seq: number): Uint8Array<ArrayBuffer> {
	if (!Number.isSafeInteger(seq) || seq < 0) throw new RangeError(`sequence number ${seq} is out of range`);
	const header = new Uint8Array(FRAME_HEADER_BYTES);
	const view = new DataView(header.buffer);
	view.setUint8(0, FRAME_VERSION);
	view.setUint8(1, direction);
	view.setBigUint64(2, BigInt(seq));
	return header;
}

/** The header fields of a frame, or undefined when it is too short to hold a header and a tag. */
export function readFrameHeader(frame: Uint8Array): { version: number; direction: number; seq: bigint } | undefined {
	if (frame.length < FRAME_HEADER_BYTES + FRAME_TAG_BYTES) return undefined;
	const view = new DataView(frame.buffer, frame.byteOffset, FRAME_HEADER_BYTES);
	return { version: view.getUint8(0), direction: view.getUint8(1), seq: view.getBigUint64(2) };
}

/** Why a frame was refused; the receiving end then closes the connection (a guest learns only INVALID_FRAME_REASON). */
export type FrameFault = "short" | "version" | "direction" | "sequence" | "authentication" | "size" | "closed";

export class FrameRejected extends Error {
	constructor(readonly fault: FrameFault) {
		super(`collaboration frame refused: ${fault}`);
		this.name = "FrameRejected";
	}
}

/** A received frame that passed every check short of decryption: what the cipher authenticates and opens. */
export interface CheckedFrame {
	/** The associated data: the frame's own header, then the room id. */
	aad: Uint8Array<ArrayBuffer>;
	/** The ciphertext and the tag after it (WebCrypto opens them together). */
	sealed: Uint8Array;
	ciphertext: Uint8Array;
	tag: Uint8Array;
}

/**
 * The checks of a frame expected at `seq` in `direction`, before any decryption: at most `maxBytes`, long
 * enough for a header and a tag, this version, this direction, exactly this sequence number. Throws
 * FrameRejected with the first fault found.
 */
export function checkFrame(frame: Uint8Array, direction: FrameDirection, seq: number, roomId: string, maxBytes: number): CheckedFrame {
	if (frame.length > maxBytes) throw new FrameRejected("size");
	const header = readFrameHeader(frame);
	if (!header) throw new FrameRejected("short");
	if (header.version !== FRAME_VERSION) throw new FrameRejected("version");
	if (header.direction !== direction) throw new FrameRejected("direction");
	if (header.seq !== BigInt(seq)) throw new FrameRejected("sequence");
	const tagAt = frame.length - FRAME_TAG_BYTES;
	return {
		aad: frameAad(frame.subarray(0, FRAME_HEADER_BYTES), roomId),
		sealed: frame.subarray(FRAME_HEADER_BYTES),
		ciphertext: frame.subarray(FRAME_HEADER_BYTES, tagAt),
		tag: frame.subarray(tagAt),
	};
}

/**
 * The receiving side of one direction of a connection: frames open exactly in sequence from 0, and the first
 * one refused ends it (every later frame is refused as `closed`), so a reader that keeps reading cannot be
 * walked past a gap. The service opens frames synchronously (node:crypto), the page asynchronously
 * (WebCrypto, one frame after the other): `open` takes either.
 */
export class ReceiveOrder {
	private next = 0;
	private broken = false;

	/** What `open` makes of the frame expected now, given its seq; a refusal, thrown or rejected, ends the order. */
	open<T>(open: (seq: number) => T): T {
		if (this.broken) throw new FrameRejected("closed");
		const refuse = (error: unknown): never => {
			this.broken = true;
			throw error;
		};
		let opened: T;
		try {
			opened = open(this.next);
		} catch (error) {
			return refuse(error);
		}
		if (opened instanceof Promise) {
			return opened.then((plaintext: unknown) => {
				this.next++;
				return plaintext;
			}, refuse) as T;
		}
		this.next++;
		return opened;
	}
}

/** The AES-GCM nonce of a frame: the direction's IV with the big-endian seq XORed into its last 8 bytes. */
export function frameNonce(iv: Uint8Array, seq: number): Uint8Array<ArrayBuffer> {
	if (iv.length !== DERIVED_IV_BYTES) throw new RangeError(`an IV has ${DERIVED_IV_BYTES} bytes`);
	const counter = new Uint8Array(DERIVED_IV_BYTES);
	new DataView(counter.buffer).setBigUint64(DERIVED_IV_BYTES - 8, BigInt(seq));
	return counter.map((byte, i) => byte ^ iv[i]!);
}

/** The associated data of a frame: its header, then the room id's ASCII bytes. */
export function frameAad(header: Uint8Array, roomId: string): Uint8Array<ArrayBuffer> {
	return concat(header, utf8(roomId));
}

/** The subprotocol a guest offers: the capability of its key and its fresh nonce. */
export function guestSubprotocol(capability: Uint8Array, clientNonce: Uint8Array): string {
	return `${COLLAB_SUBPROTOCOL_PREFIX}${encodeBase64Url(capability)}.${encodeBase64Url(clientNonce)}`;
}

/** Bytes as base64url without padding. */
export function encodeBase64Url(bytes: Uint8Array): string {
	let binary = "";
	for (const byte of bytes) binary += String.fromCharCode(byte);
	return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * The bytes of unpadded base64url text, or undefined unless it is the canonical encoding of exactly
 * `length` bytes (so no two texts stand for the same capability or key).
 */
export function decodeBase64Url(text: string, length: number): Uint8Array<ArrayBuffer> | undefined {
	if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length !== Math.ceil((length * 4) / 3)) return undefined;
	const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
	const bytes = new Uint8Array(binary.length);
	for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
	if (bytes.length !== length || encodeBase64Url(bytes) !== text) return undefined;
	return bytes;
}

/** The bytes of several arrays, one after the other. */
export function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
	const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
	let offset = 0;
	for (const part of parts) {
		out.set(part, offset);
		offset += part.length;
	}
	return out;
}

/** The plaintext text frame the host sends first on every guest connection (the only unencrypted frame). */
export interface CollabHello {
	type: "hello";
	protocol: typeof COLLAB_PROTOCOL;
	roomId: string;
	role: CollabRole;
	/** The host's nonce of this connection, base64url (16 bytes). */
	serverNonce: string;
	maxHostFrameBytes: number;
	maxGuestFrameBytes: number;
}

/** What a guest may send once joined (a subset of the control protocol's commands, for the room's session). */
export type GuestCommandType = "prompt" | "steer" | "abort";
export const GUEST_COMMAND_TYPES: readonly GuestCommandType[] = ["prompt", "steer", "abort"];

/** The first encrypted frame of a guest (sequence 0): it proves the guest holds the key. */
export interface GuestJoin {
	type: "collab_join";
}

/** A command of a control guest; a view guest's gets a `forbidden` refusal. */
export interface GuestCommand {
	type: GuestCommandType;
	id?: string;
	/** The text for `prompt` and `steer`; absent for `abort`. */
	message?: string;
}

/** The answer to a guest's command: the control protocol's response, without `data`. */
export interface GuestResponse {
	type: "response";
	id?: string;
	command: string;
	success: boolean;
	error?: string;
	code?: string;
}

/** The shared session as guests see it: no paths, files or internal state. */
export interface CollabSessionView {
	name?: string;
	model?: { provider: string; id: string; name?: string };
	thinkingLevel: string;
	isStreaming: boolean;
	isCompacting: boolean;
	messageCount: number;
	pendingMessageCount: number;
}

/**
 * The host's first encrypted frame (sequence 0), and again whenever the transcript changed other than by
 * appending (a compaction, a navigation, a reload): the whole transcript as guests see it at event `seq`.
 * Events with a larger seq follow; older ones are already in it.
 */
export interface CollabSnapshot<Message = unknown> {
	type: "collab_snapshot";
	sessionId: string;
	seq: number;
	session: CollabSessionView;
	messages: Message[];
	/** The assistant message being streamed, when a run is active. */
	streaming?: Message;
	/** How many of the oldest messages were left out so the snapshot fits in one frame (0: none). */
	omittedMessages: number;
}
