/**
 * The composer's logic without a browser: which `@` words are mentions, how mentioned files go with a message
 * (pi's `<file>` blocks, bounded) and come back out of it as chips, the word being completed at the caret, the
 * choices offered, and the images' limits for one message.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type FilesReadResult, SkiffCommandError } from "../../../src/client/index.js";
import { MAX_IMAGES, MAX_MESSAGE_BYTES, tooMuch, wireImage } from "../../../web/src/state/attachments.js";
import { Completions, queryAt } from "../../../web/src/state/completions.js";
import { MAX_MENTION_CHARS, MAX_MENTIONS, mentionedPaths, splitMentions, withMentions } from "../../../web/src/state/mentions.js";

const text = (path: string, body: string, extra: Partial<FilesReadResult> = {}): FilesReadResult =>
	({ kind: "text", path, size: body.length, language: "plaintext", encoding: "utf-8", truncated: false, redacted: false, text: body, ...extra }) as FilesReadResult;
const missing = (path: string) => new SkiffCommandError("files_read", "not_found", `"${path}" does not exist in the session's working directory`);

test("mentions: `@` at a word's start, each path once, sentence punctuation left out; e-mail addresses are not mentions", () => {
	assert.deepEqual(mentionedPaths("see @src/a.ts, and @b.md. Again @src/a.ts! mail me@example.com (@c/d.txt)"), ["src/a.ts", "b.md"]);
	assert.deepEqual(mentionedPaths("@first\n@second?"), ["first", "second"]);
	assert.deepEqual(mentionedPaths("@ alone, @@x"), []);
	// A very long word costs one pass: the pattern is bounded and has no nested repetition.
	assert.deepEqual(mentionedPaths(`@${"a".repeat(10_000)}`), ["a".repeat(4096)]);
});

test("mentioned files go before the text as pi's <file> blocks; names that are no file stay text", async () => {
	const files: Record<string, FilesReadResult> = { "src/a.ts": text("src/a.ts", "const a = 1;") };
	const read = async (path: string) => {
		const file = files[path];
		if (!file) throw missing(path);
		return file;
	};
	const { text: sent, images } = await withMentions("look at @src/a.ts and ask @alice", read);
	assert.equal(sent, '<file name="src/a.ts">\nconst a = 1;\n</file>\nlook at @src/a.ts and ask @alice');
	assert.deepEqual(images, []);
	assert.deepEqual(splitMentions(sent), { files: ["src/a.ts"], text: "look at @src/a.ts and ask @alice" });
});

test("a mentioned file is cut at the bound and says so; an image goes as image content; binary and refused files stop the message", async () => {
	const big = "x".repeat(MAX_MENTION_CHARS + 10);
	const { text: sent } = await withMentions("@big.txt", async () => text("big.txt", big, { size: big.length }));
	assert.ok(sent.length < MAX_MENTION_CHARS + 200);
	assert.match(sent, new RegExp(`\\[… cut: the first ${MAX_MENTION_CHARS.toLocaleString("en")} characters of ${big.length.toLocaleString("en")} bytes\\]\\n</file>\\n@big.txt$`));
	assert.deepEqual(splitMentions(sent).files, ["big.txt"]);

	const image = { kind: "image", path: "logo.png", size: 10, mimeType: "image/png", data: "iVBORw0KGgo=" } as FilesReadResult;
	const withImage = await withMentions("@logo.png", async () => image);
	assert.equal(withImage.text, '<file name="logo.png"></file>\n@logo.png');
	assert.deepEqual(withImage.images, [{ type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" }]);
	assert.deepEqual(splitMentions(withImage.text), { files: ["logo.png"], text: "@logo.png" });

	await assert.rejects(withMentions("@data.bin", async () => ({ kind: "binary", path: "data.bin", size: 1234 }) as FilesReadResult), {
		message: "@data.bin is binary (1,234 bytes): only text files and images go with a message",
	});
	await assert.rejects(
		withMentions("@.git/config", async () => {
			throw new SkiffCommandError("files_read", "forbidden", '".git/config" is inside git\'s own folder (.git), which is not shown');
		}),
		{ message: '@.git/config: ".git/config" is inside git\'s own folder (.git), which is not shown' },
	);
	const many = Array.from({ length: MAX_MENTIONS + 1 }, (_, i) => `@f${i}`).join(" ");
	await assert.rejects(withMentions(many, async (path) => text(path, "x")), { message: `At most ${MAX_MENTIONS} files can be mentioned in one message` });
});

test("a bubble's text without blocks is left whole, and a damaged block is not taken for one", () => {
	assert.deepEqual(splitMentions("plain text"), { files: [], text: "plain text" });
	assert.deepEqual(splitMentions('<file name="a">\nno end'), { files: [], text: '<file name="a">\nno end' });
	assert.deepEqual(splitMentions('<file name="a\nb">x</file>\nrest'), { files: [], text: '<file name="a\nb">x</file>\nrest' });
});

test("the word at the caret: `/` only opening the message, `@` anywhere", () => {
	assert.deepEqual(queryAt("/rev", 4), { kind: "/", start: 0, end: 4, word: "rev" });
	assert.equal(queryAt("say /rev", 8), undefined);
	assert.deepEqual(queryAt("look at @src/ap and", 15), { kind: "@", start: 8, end: 15, word: "src/ap" });
	assert.equal(queryAt("look at @src/ap and", 19), undefined);
	assert.equal(queryAt("", 0), undefined);
});

test("choices: commands by prefix with descriptions; paths of the typed folder, without what git ignores or a name it cannot open, folders walkable", async () => {
	const calls: string[] = [];
	const client = {
		call: async (type: string, params: { path?: string }) => {
			calls.push(`${type}:${params.path ?? ""}`);
			if (type === "get_commands") return { commands: [{ name: "review", description: "Review it", source: "prompt" }, { name: "skill:x", source: "skill" }] };
			return {
				entries: [
					{ name: ".git", path: ".git", kind: "directory" },
					{ name: "build", path: "build", kind: "directory", ignored: true },
					{ name: "src", path: "src", kind: "directory", ignored: false },
					{ name: "lib", path: "lib", kind: "symlink", target: "directory" },
					{ name: "Readme.md", path: "Readme.md", kind: "file", ignored: false },
					{ name: "r\ufffdsum\u00e9.txt", path: "r\ufffdsum\u00e9.txt", kind: "file", unnamable: true },
				],
			};
		},
	};
	let session = "s1";
	const completions = new Completions(client as never, () => session);
	assert.deepEqual(await completions.choices({ kind: "/", start: 0, end: 2, word: "r" }), [{ label: "/review", detail: "Review it", insert: "/review " }]);
	const all = await completions.choices({ kind: "@", start: 0, end: 1, word: "" });
	assert.deepEqual(
		all.map((c) => [c.label, c.insert, c.folder]),
		[
			["src/", "@src/", true],
			["lib/", "@lib/", true],
			["Readme.md", "@Readme.md ", false],
		],
	);
	assert.deepEqual((await completions.choices({ kind: "@", start: 0, end: 3, word: "re" })).map((c) => c.label), ["Readme.md"]);
	assert.deepEqual(calls, ["get_commands:", "files_list:"], "kept while the completion is open");
	completions.reset();
	await completions.choices({ kind: "@", start: 0, end: 5, word: "src/a" });
	assert.deepEqual(calls.at(-1), "files_list:src/");
	// Another session (another folder): nothing kept is offered.
	session = "s2";
	const count = calls.length;
	await completions.choices({ kind: "@", start: 0, end: 5, word: "src/a" });
	assert.equal(calls.length, count + 1, "read again for the other session");
});

test("one message: at most eight images, and text, files and images together within the service's message limit", () => {
	const image = (chars: number) => ({ type: "image" as const, mimeType: "image/png" as const, data: "A".repeat(chars) });
	assert.equal(tooMuch([image(10)], "hello"), undefined);
	assert.equal(tooMuch(Array.from({ length: MAX_IMAGES + 1 }, () => image(1))), `At most ${MAX_IMAGES} images go with one message`);
	const refusal = /^The message comes to 3\.8 MiB with its images and files; one message carries at most 3\.8 MiB: remove an image or a file/;
	assert.match(tooMuch([image(MAX_MESSAGE_BYTES / 2), image(MAX_MESSAGE_BYTES / 2 + 4)])!, refusal);
	assert.equal(tooMuch([image(MAX_MESSAGE_BYTES / 2)], "x".repeat(MAX_MESSAGE_BYTES / 2)), undefined, "exactly at the limit");
	// Text counts in UTF-8 bytes: "é" is two.
	assert.match(tooMuch([image(MAX_MESSAGE_BYTES / 2)], "é".repeat(MAX_MESSAGE_BYTES / 4 + 1))!, refusal);
	// Uploaded images go by id: eight of 5 MiB fit beside the text.
	const uploaded = { ...image(7 * 1024 * 1024), id: "0".repeat(32) };
	assert.equal(tooMuch(Array(MAX_IMAGES).fill(uploaded), "hello"), undefined);
	assert.deepEqual(wireImage(uploaded), { type: "image", attachmentId: "0".repeat(32) });
	assert.deepEqual(wireImage(image(4)), { type: "image", data: "AAAA", mimeType: "image/png" });
});

test("a mentioned file whose text holds its block's close still shows as one chip, the message after it", async () => {
	const files: Record<string, FilesReadResult> = {
		"fixture.xml": text("fixture.xml", "<files>\n  <file>a</file>\n  <file>b</file>\n</files>"),
		"notes.md": text("notes.md", "end of a block: </file>\nthen more"),
		"bare.txt": text("bare.txt", "a line of its own:\n</file>\nand after"),
	};
	const read = async (path: string) => files[path]!;
	const one = await withMentions("why does @fixture.xml fail?", read);
	assert.deepEqual(splitMentions(one.text), { files: ["fixture.xml"], text: "why does @fixture.xml fail?" });
	const two = await withMentions("compare @fixture.xml with @notes.md", read);
	assert.deepEqual(splitMentions(two.text), { files: ["fixture.xml", "notes.md"], text: "compare @fixture.xml with @notes.md" });
	// A message that quotes the close itself.
	const quoting = await withMentions("is </file>\nthe end of @notes.md?", read);
	assert.deepEqual(splitMentions(quoting.text), { files: ["notes.md"], text: "is </file>\nthe end of @notes.md?" });
	// A close on a line of its own in a file: told apart when another block follows.
	const lines = await withMentions("@bare.txt and @notes.md", read);
	assert.deepEqual(splitMentions(lines.text), { files: ["bare.txt", "notes.md"], text: "@bare.txt and @notes.md" });
	// Mentioned last, it cannot be told from a message that starts with the rest: the rest shows, nothing is hidden.
	const last = await withMentions("see @bare.txt", read);
	assert.deepEqual(splitMentions(last.text), { files: ["bare.txt"], text: "and after\n</file>\nsee @bare.txt" });
	// Text made of closes costs one pass, not one per close.
	const closes = "\n</file>\n".repeat(100_000);
	assert.deepEqual(splitMentions(`<file name="x">${closes}<file name="y"></file>\nhi`).files.length, 2);
});
