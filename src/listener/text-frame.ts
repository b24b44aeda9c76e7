/**
 * A message as a whole WebSocket text frame (RFC 6455 §5.2: FIN, opcode 1, the length, unmasked as a
 * server's frames are), encoded once and shared. An event is one string shared by every follower (the event
 * hub serializes it once), and the followers that keep up are handed it one after another within one
 * publish, so the frame of the last string is kept for the next socket that sends the same string: a
 * hundred followers cost one encode and no frame header of their own. Only the last frame is kept, so the
 * memory this holds is one message's.
 */

/** Payloads up to this length have their length in the second byte. */
const SHORT_MAX = 125;
/** Up to this length, in two more bytes (126 in the second); beyond it, in eight (127). */
const MEDIUM_MAX = 0xffff;
const FIN_TEXT = 0x81;

let lastText: string | undefined;
let lastFrame: Buffer | undefined;

/** The frame of `text`, shared with the previous call when it sent the same string. */
export function textFrame(text: string): Buffer {
	// The same string object compares by pointer first, so a hit costs no character comparison.
	if (text !== lastText) {
		lastFrame = encodeTextFrame(text);
		lastText = text;
	}
	return lastFrame!;
}

/** A new frame of `text`. */
export function encodeTextFrame(text: string): Buffer {
	const length = Buffer.byteLength(text, "utf8");
	const header = length <= SHORT_MAX ? 2 : length <= MEDIUM_MAX ? 4 : 10;
	const frame = Buffer.allocUnsafe(header + length);
	frame[0] = FIN_TEXT;
	if (header === 2) frame[1] = length;
	else if (header === 4) {
		frame[1] = 126;
		frame.writeUInt16BE(length, 2);
	} else {
		frame[1] = 127;
		frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
		frame.writeUInt32BE(length >>> 0, 6);
	}
	frame.write(text, header, "utf8");
	return frame;
}
