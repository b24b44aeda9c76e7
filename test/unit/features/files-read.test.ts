/**
 * What `files_read` makes of a file's bytes: text cut at 1 MiB between characters (of two, three and four bytes),
 * an empty file, text that is mostly control bytes taken as binary, an image over the bound sent as its type and
 * size only, a file whose name says image but whose bytes do not, and a name that is not UTF-8.
 */
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { listFiles } from "../../../src/features/files/listing.js";
import { readFile } from "../../../src/features/files/read.js";
import { MAX_IMAGE_BYTES, MAX_TEXT_BYTES } from "../../../src/features/files/schemas.js";

let root: string;
before(() => {
	root = realpathSync(mkdtempSync(join(tmpdir(), "skiff-files-read-")));
});
after(() => rmSync(root, { recursive: true, force: true }));

test("text past 1 MiB is cut between characters, whatever their length", async () => {
	for (const char of ["é", "€", "😀"]) {
		const bytes = Buffer.byteLength(char);
		// One ASCII byte first, so that the cut at MAX_TEXT_BYTES falls inside a character.
		writeFileSync(join(root, "long.txt"), `a${char.repeat(Math.ceil(MAX_TEXT_BYTES / bytes) + 10)}`);
		const read = await readFile(root, "long.txt");
		assert.equal(read.kind, "text");
		if (read.kind !== "text") continue;
		const whole = Math.floor((MAX_TEXT_BYTES - 1) / bytes);
		assert.equal(read.truncated, true);
		assert.equal(read.encoding, "utf-8", `${char}: no half character decoded as U+FFFD`);
		assert.equal(read.text, `a${char.repeat(whole)}`, char);
	}
});

test("an empty file is empty text; mostly control bytes are binary", async () => {
	writeFileSync(join(root, "empty.txt"), "");
	assert.deepEqual(await readFile(root, "empty.txt"), {
		kind: "text", path: "empty.txt", size: 0, language: "plaintext", encoding: "utf-8", truncated: false, redacted: false, text: "",
	});
	writeFileSync(join(root, "controls"), Buffer.from(Array.from({ length: 100 }, (_, i) => (i % 3 === 0 ? 1 : 65))));
	assert.equal((await readFile(root, "controls")).kind, "binary");
	writeFileSync(join(root, "escapes.txt"), "\x1b[31mred\x1b[0m\ttab\r\n");
	assert.equal((await readFile(root, "escapes.txt")).kind, "text", "terminal colours and tabs are text");
});

test("an image over the bound is its type and size only; a name is not a type", async () => {
	const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
	writeFileSync(join(root, "big.png"), png);
	truncateSync(join(root, "big.png"), MAX_IMAGE_BYTES + 1);
	const big = await readFile(root, "big.png");
	assert.deepEqual(big, { kind: "binary", path: "big.png", size: MAX_IMAGE_BYTES + 1, mimeType: "image/png", reason: "an image over 5 MiB is not sent" });
	writeFileSync(join(root, "fake.png"), "not a picture\n");
	const fake = await readFile(root, "fake.png");
	assert.equal(fake.kind, "text");
});

test("a name that is not UTF-8 is listed as unnamable (spelt with U+FFFD), and that spelling is not_found saying why", async () => {
	writeFileSync(Buffer.concat([Buffer.from(join(root, "caf")), Buffer.from([0xe9]), Buffer.from(".txt")]), "latin1 name\n");
	// Nor can a name holding a backslash be asked for (confine.ts refuses it in a path).
	writeFileSync(join(root, "back\\slash.txt"), "a backslash in its name\n");
	const { entries } = await listFiles(root, {});
	const listed = entries.find((entry) => entry.name.startsWith("caf"));
	assert.deepEqual(listed, { name: "caf\ufffd.txt", path: "caf\ufffd.txt", kind: "file", unnamable: true }, "no size of another file, no ignored mark");
	assert.equal(entries.find((entry) => entry.name.startsWith("back"))?.unnamable, true);
	assert.equal(entries.find((entry) => entry.name === "empty.txt")?.unnamable, undefined);
	await assert.rejects(readFile(root, listed!.path), (error: any) => error.code === "not_found" && /not UTF-8 on disk/.test(error.message));
	await assert.rejects(readFile(root, "nothing.txt"), (error: any) => error.code === "not_found" && !/UTF-8/.test(error.message));
});
