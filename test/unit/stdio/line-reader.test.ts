/** Strict JSONL framing of standard input in --mode rpc. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { JsonlLineReader } from "../../../src/stdio/line-reader.js";

function reader(maxLineBytes = 64) {
	const lines: string[] = [];
	const oversize: number[] = [];
	const r = new JsonlLineReader(maxLineBytes, { line: (t) => lines.push(t), oversize: (b) => oversize.push(b) });
	return { r, lines, oversize };
}

test("records end at LF only: CR before it is dropped, U+2028/U+2029 and lone CRs stay inside", () => {
	const { r, lines } = reader();
	r.push(Buffer.from('{"a":"x\u2028y\u2029z"}\r\n{"b":"1\r2"}\n'));
	assert.deepEqual(lines, ['{"a":"x\u2028y\u2029z"}', '{"b":"1\r2"}']);
});

test("a line split across chunks, even inside a UTF-8 character, is decoded whole", () => {
	const { r, lines } = reader();
	const bytes = Buffer.from('{"t":"héllo ✓"}\n');
	for (let i = 0; i < bytes.length; i++) r.push(bytes.subarray(i, i + 1));
	assert.deepEqual(lines, ['{"t":"héllo ✓"}']);
});

test("the end of input completes a last line without LF; nothing is made up when there is none", () => {
	const { r, lines } = reader();
	r.push(Buffer.from('{"a":1}\n{"b":2}'));
	r.end();
	assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
	const empty = reader();
	empty.r.push(Buffer.from('{"a":1}\n'));
	empty.r.end();
	assert.deepEqual(empty.lines, ['{"a":1}']);
});

test("a line over the cap is skipped up to its LF and reported once; the next line is read normally", () => {
	const { r, lines, oversize } = reader(16);
	r.push(Buffer.from("x".repeat(10)));
	r.push(Buffer.from("y".repeat(10)));
	r.push(Buffer.from("z".repeat(10) + '\n{"ok":1}\n'));
	assert.deepEqual(oversize, [30]);
	assert.deepEqual(lines, ['{"ok":1}']);
	r.push(Buffer.from("w".repeat(16) + "\n"));
	assert.deepEqual(lines, ['{"ok":1}', "w".repeat(16)], "a line of exactly the cap is kept");
});
