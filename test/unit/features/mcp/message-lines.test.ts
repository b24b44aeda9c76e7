/** A stdio server's output cut into messages with memory bounded: whole lines, and a line over the bound salvaged. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { HEAD_BYTES, idOfCutResponse, type LineEvent, MessageLines, TAIL_BYTES, textOfCutResponse } from "../../../../src/features/mcp/message-lines.js";

function read(chunks: Buffer[], maxBytes?: number): LineEvent[] {
	const events: LineEvent[] = [];
	const lines = new MessageLines((event) => events.push(event), maxBytes);
	for (const chunk of chunks) lines.push(chunk);
	return events;
}

test("lines come whole whatever the chunks, blank lines and a trailing CR dropped", () => {
	const events = read([Buffer.from('{"a":'), Buffer.from('1}\r\n\n{"b"'), Buffer.from(":2}\n")]);
	assert.deepEqual(events, [
		{ kind: "line", text: '{"a":1}' },
		{ kind: "line", text: '{"b":2}' },
	]);
});

test("a line over the bound keeps only its head and tail, and the next line is read as usual", () => {
	const text = "x".repeat(5000);
	const line = `{"result":{"content":[{"type":"text","text":"${text}"}]},"jsonrpc":"2.0","id":7}`;
	const chunks: Buffer[] = [];
	for (let i = 0; i < line.length; i += 100) chunks.push(Buffer.from(line.slice(i, i + 100)));
	const events = read([...chunks, Buffer.from('\n{"next":true}\n')], 1000);
	assert.equal(events.length, 2);
	const cut = events[0]!;
	assert.equal(cut.kind, "oversized");
	if (cut.kind !== "oversized") return;
	assert.equal(cut.bytes, line.length);
	assert.ok(cut.head.length <= HEAD_BYTES && cut.tail.length <= TAIL_BYTES);
	assert.equal(idOfCutResponse(cut.head, cut.tail), 7);
	assert.equal(textOfCutResponse(cut.head), text.slice(0, textOfCutResponse(cut.head).length));
	assert.deepEqual(events[1], { kind: "line", text: '{"next":true}' });
});

test("the id of a cut response is found at its start too, and escapes in its text are decoded", () => {
	assert.equal(idOfCutResponse('{"jsonrpc":"2.0","id":"req-1","result":{', "…xxxx"), "req-1");
	assert.equal(idOfCutResponse("{\"result\":", "…no id here"), undefined);
	assert.equal(textOfCutResponse('{"content":[{"type":"text","text":"a\\nb \\u00e9 \\"q\\""}]'), 'a\nb é "q"');
	assert.equal(textOfCutResponse('{"text":"cut in an escape \\u00'), "cut in an escape ");
});
