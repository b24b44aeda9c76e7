import assert from "node:assert/strict";
import { test } from "node:test";
import { createRequire } from "node:module";
import { encodeTextFrame, textFrame } from "../../../src/listener/text-frame.js";

/** ws's frame parser (exported by ws, not in its type declarations). */
interface FrameReceiver {
	on(event: "message", listener: (data: Buffer, isBinary: boolean) => void): void;
	on(event: "error", listener: (error: Error) => void): void;
	write(bytes: Buffer): void;
}
const { Receiver } = createRequire(import.meta.url)("ws") as { Receiver: new (options: { isServer: boolean }) => FrameReceiver };

/** The messages ws's own parser (as a client, which reads unmasked server frames) finds in `bytes`. */
function parse(bytes: Buffer): Array<{ text: string; binary: boolean }> {
	const messages: Array<{ text: string; binary: boolean }> = [];
	const receiver = new Receiver({ isServer: false });
	receiver.on("message", (data, isBinary) => messages.push({ text: data.toString(), binary: isBinary }));
	receiver.on("error", (error) => assert.fail(error));
	receiver.write(bytes);
	return messages;
}

test("a text frame is a whole, final, unmasked text frame at every length form, UTF-8 counted in bytes", () => {
	const texts = [
		"",
		'{"type":"message_update","delta":"x"}',
		"é".repeat(62), // 124 bytes: the short form
		"é".repeat(63), // 126 bytes: the 16-bit form
		"x".repeat(0xffff), // the largest 16-bit length
		"x".repeat(0x10000), // the 64-bit form
		"naïve 🚀 ".repeat(20_000),
	];
	for (const text of texts) {
		const frame = encodeTextFrame(text);
		const bytes = Buffer.byteLength(text);
		assert.equal(frame[0], 0x81, "FIN and opcode 1");
		assert.equal(frame[1]! & 0x80, 0, "not masked");
		const header = bytes <= 125 ? 2 : bytes <= 0xffff ? 4 : 10;
		assert.equal(frame.length, header + bytes, `frame of ${bytes} bytes`);
		assert.deepEqual(parse(frame), [{ text, binary: false }]);
	}
	const all = Buffer.concat(texts.map((text) => encodeTextFrame(text)));
	assert.deepEqual(
		parse(all).map((m) => m.text),
		texts,
		"frames written back to back read as the messages, in order",
	);
});

test("the same string is framed once; another string gets its own frame", () => {
	const text = JSON.stringify({ type: "message_update", seq: 1 });
	const first = textFrame(text);
	assert.equal(textFrame(text), first, "followers of one event share its frame");
	const other = textFrame(JSON.stringify({ type: "message_update", seq: 2 }));
	assert.notEqual(other, first);
	assert.deepEqual(parse(first), [{ text, binary: false }], "a frame handed out is never overwritten");
});
