/** The session scan's line reader (src/agent/pi/bounded-lines.ts): whole lines, cut lines, skipped lines, and what it holds. */
import assert from "node:assert/strict";
import { open } from "node:fs/promises";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { boundedLines, fileChunks, type HeldBytes, type LineBounds } from "../../../../src/agent/pi/bounded-lines.js";
import { tempDir } from "../../../support/skiff-process.js";

/** The text in chunks of `size` bytes (a chunk boundary anywhere: inside a character, an escape, a newline's neighbours). */
async function* chunked(text: string | Buffer, size: number): AsyncGenerator<Buffer> {
	const bytes = Buffer.from(text);
	for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function read(text: string | Buffer, bounds: LineBounds, chunk = 7, held?: HeldBytes): Promise<string[]> {
	const lines: string[] = [];
	for await (const line of boundedLines(chunked(text, chunk), bounds, held)) lines.push(line);
	return lines;
}

const small: LineBounds = { wholeMaxBytes: 64, stringKeptBytes: 8 };

test("lines up to the bound come whole, whatever the chunks; an empty line is a line; the last needs no newline", async () => {
	const text = '{"a":"é€😀"}\n\n[1,2]\r\nlast';
	for (const chunk of [1, 2, 3, 5, 64, 1000]) {
		assert.deepEqual(await read(text, small, chunk), ['{"a":"é€😀"}', "", "[1,2]\r", "last"], `chunks of ${chunk}`);
	}
	assert.deepEqual(await read("a\n", small), ["a"], "a final newline ends the last line");
	assert.deepEqual(await read("", small), []);
});

test("a longer line has each string cut to its first bytes, never inside an escape or a character, and still parses", async () => {
	const entry = { type: "message", text: "short", data: "B".repeat(200), quoted: 'ab"cd\\ef\ng', unicode: "\u0001\u0002éé€€😀😀", n: [1, true, null] };
	const line = JSON.stringify(entry);
	assert.ok(Buffer.byteLength(line) > small.wholeMaxBytes);
	for (const chunk of [1, 3, 7, 1000]) {
		const [cut] = await read(`${line}\nnext`, { wholeMaxBytes: 128, stringKeptBytes: 8 }, chunk);
		const parsed = JSON.parse(cut!) as typeof entry;
		assert.equal(parsed.type, "message");
		assert.equal(parsed.text, "short");
		assert.equal(parsed.data, "BBBBBBBB");
		assert.deepEqual(parsed.n, [1, true, null]);
		for (const key of ["quoted", "unicode"] as const) {
			assert.ok(entry[key].startsWith(parsed[key]) && parsed[key].length > 0, `${key} cut to a prefix: ${JSON.stringify(parsed[key])} (chunks of ${chunk})`);
		}
	}
});

test("a line still too long once cut (many strings, or not JSON) is skipped, and the lines after it are read; nothing held past the bound", async () => {
	const many = JSON.stringify(Array.from({ length: 100 }, (_, i) => `s${i}`));
	const notJson = "x".repeat(10_000);
	const unterminated = `{"a":"${"y".repeat(10_000)}`;
	const held: HeldBytes = { max: 0 };
	assert.deepEqual(await read(`${many}\n${notJson}\nafter\n${unterminated}\nend`, small, 13, held), ["after", `{"a":"yyyyyyyy`, "end"]);
	assert.ok(held.max <= small.wholeMaxBytes, `held ${held.max} bytes`);
});

test("random entries in random chunks: every line comes whole when it fits, else cut to prefixes that parse, else skipped", async () => {
	let seed = 42;
	const random = () => (seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32; // 32-bit, so no precision is lost
	const alphabet = ["a", "Z", " ", '"', "\\", "\n", "\t", "\u0000", "é", "€", "😀", "/", "u"];
	const text = () => Array.from({ length: Math.floor(random() ** 3 * 300) }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
	const bounds: LineBounds = { wholeMaxBytes: 400, stringKeptBytes: 16 };
	const entries = Array.from({ length: 300 }, () => ({ a: text(), list: Array.from({ length: Math.floor(random() * 4) }, text), n: random() }));
	const lines = entries.map((entry) => JSON.stringify(entry));
	const byN = new Map(entries.map((entry, i) => [entry.n, i]));
	assert.equal(byN.size, entries.length, "each entry found by its number");
	for (const chunk of [1, 5, 64, 4096]) {
		const held: HeldBytes = { max: 0 };
		const got = await read(lines.join("\n"), bounds, chunk, held);
		assert.ok(held.max <= bounds.wholeMaxBytes);
		const found = new Set<number>();
		let last = -1;
		for (const line of got) {
			const parsed = JSON.parse(line) as (typeof entries)[number];
			const i = byN.get(parsed.n)!;
			assert.ok(i > last, `in order (chunks of ${chunk})`);
			last = i;
			found.add(i);
			if (Buffer.byteLength(lines[i]!) <= bounds.wholeMaxBytes) assert.equal(line, lines[i], `line ${i} whole (chunks of ${chunk})`);
			assert.ok(entries[i]!.a.startsWith(parsed.a), `line ${i}: a`);
			assert.equal(parsed.list.length, entries[i]!.list.length);
			parsed.list.forEach((item, k) => assert.ok(entries[i]!.list[k]!.startsWith(item), `line ${i}: list ${k}`));
		}
		const skipped = lines.filter((line, i) => !found.has(i));
		assert.ok(skipped.every((line) => Buffer.byteLength(line) > bounds.wholeMaxBytes), "only a line too long is skipped");
		assert.ok(found.size > lines.filter((line) => Buffer.byteLength(line) <= bounds.wholeMaxBytes).length, "some long lines came cut");
	}
});

test("a file's chunks are read into one buffer that each read reuses", async () => {
	const path = join(tempDir(), "chunks.txt");
	writeFileSync(path, "0123456789abcdef");
	const file = await open(path, "r");
	try {
		const seen: string[] = [];
		const buffers = new Set<ArrayBufferLike>();
		for await (const chunk of fileChunks(file, 5)) {
			seen.push(chunk.toString());
			buffers.add(chunk.buffer);
		}
		assert.deepEqual(seen, ["01234", "56789", "abcde", "f"]);
		assert.equal(buffers.size, 1);
	} finally {
		await file.close();
	}
});
