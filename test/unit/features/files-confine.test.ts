/**
 * The project files' confinement, against a real folder: every way out of the session's working directory is
 * refused with a code and a message naming the path and why (`..`, an absolute path, a NUL byte, a backslash,
 * `.git`, a link to outside, a chain of links ending outside, a linked parent folder, a link into `.git`), a
 * FIFO is refused without waiting for a writer, links that stay inside are followed, and nothing changes on disk.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { confine, pathParts } from "../../../src/features/files/confine.js";
import { listFiles } from "../../../src/features/files/listing.js";
import { open } from "node:fs/promises";
import { checkOpened, readFile } from "../../../src/features/files/read.js";
import { CodedError } from "../../../src/shared/errors.js";

let base: string;
let root: string;
let outside: string;

before(() => {
	base = realpathSync(mkdtempSync(join(tmpdir(), "skiff-files-confine-")));
	root = join(base, "root");
	outside = join(base, "outside");
	mkdirSync(join(root, "src", "deep"), { recursive: true });
	mkdirSync(join(root, ".git"));
	mkdirSync(outside);
	writeFileSync(join(root, "src", "a.ts"), "export const a = 1;\n");
	writeFileSync(join(root, ".git", "config"), "[remote]\nurl = https://user:secret@example.com\n");
	writeFileSync(join(outside, "secret.txt"), "outside the root\n");
	symlinkSync(join(outside, "secret.txt"), join(root, "to-outside")); // absolute link out
	symlinkSync("../outside/secret.txt", join(root, "relative-out")); // relative link out
	symlinkSync("chain-2", join(root, "chain-1")); // a chain whose end is outside
	symlinkSync("to-outside", join(root, "chain-2"));
	symlinkSync(outside, join(root, "linked-dir")); // a parent folder that is a link out
	symlinkSync(".git/config", join(root, "to-git")); // a link into git's folder
	symlinkSync("src/a.ts", join(root, "inside-link")); // stays inside: followed
	symlinkSync("src", join(root, "src-link"));
	symlinkSync("loop-b", join(root, "loop-a"));
	symlinkSync("loop-a", join(root, "loop-b"));
	execFileSync("mkfifo", [join(root, "fifo")]);
});

after(() => rmSync(base, { recursive: true, force: true }));

async function refusal(promise: Promise<unknown>): Promise<CodedError> {
	try {
		await promise;
	} catch (error) {
		assert.ok(error instanceof CodedError, String(error));
		return error;
	}
	assert.fail("not refused");
}

test("malformed and escaping paths are refused before the disk is looked at", () => {
	const cases: Array<[string, string, RegExp]> = [
		["../outside/secret.txt", "forbidden", /goes up with "\.\."/],
		["src/../../outside", "forbidden", /goes up/],
		["..", "forbidden", /goes up/],
		["/etc/passwd", "forbidden", /absolute path/],
		["src/a.ts\0.png", "invalid_command", /NUL byte/],
		["..\\..\\etc\\passwd", "invalid_command", /backslash/],
		[".git/config", "forbidden", /git's own folder/],
		["src/.git", "forbidden", /git's own folder/],
		["x".repeat(5000), "invalid_command", /longer than 4096/],
	];
	for (const [path, code, message] of cases) {
		assert.throws(() => pathParts(path), (error: CodedError) => error.code === code && message.test(error.message), path);
	}
	assert.deepEqual(pathParts(""), []);
	assert.deepEqual(pathParts("./src//deep/"), ["src", "deep"]);
});

test("links that leave the root, however they do, are refused for reading and listing", async () => {
	for (const path of ["to-outside", "relative-out", "chain-1", "linked-dir/secret.txt", "to-git"]) {
		const error = await refusal(readFile(root, path));
		assert.equal(error.code, "forbidden", path);
		assert.match(error.message, new RegExp(`"${path}" leads (outside the session's working directory|into git's own folder)`), path);
	}
	const listed = await refusal(listFiles(root, { path: "linked-dir" }));
	assert.equal(listed.code, "forbidden");
	assert.match(listed.message, /"linked-dir" leads outside/);
	assert.equal((await refusal(readFile(root, "loop-a"))).code, "forbidden");
	assert.equal((await refusal(readFile(root, "missing.txt"))).code, "not_found");
	assert.equal((await refusal(readFile(root, "src/a.ts/more"))).code, "not_found");
});

test("links that stay inside are followed", async () => {
	const read = await readFile(root, "inside-link");
	assert.equal(read.kind, "text");
	assert.equal(read.kind === "text" && read.text, "export const a = 1;\n");
	assert.equal(read.path, "inside-link");
	const listed = await listFiles(root, { path: "src-link" });
	assert.deepEqual(
		listed.entries.map((e) => e.name),
		["deep", "a.ts"],
	);
	assert.equal((await confine(root, "src-link/a.ts")).real, join(root, "src", "a.ts"));
});

test("a FIFO is refused at once, and a folder is not read as a file", async () => {
	const fifo = await refusal(readFile(root, "fifo"));
	assert.equal(fifo.code, "invalid_command");
	assert.match(fifo.message, /"fifo" is not a regular file \(a FIFO\)/);
	const folder = await refusal(readFile(root, "src"));
	assert.match(folder.message, /is a folder: list it with files_list/);
	const file = await refusal(listFiles(root, { path: "src/a.ts" }));
	assert.match(file.message, /is not a folder: read it with files_read/);
});

test("the root listing marks links by where they lead and lists .git without entering it; nothing changes on disk", async () => {
	const before = readdirSync(root).sort();
	const listed = await listFiles(root, {});
	const byName = new Map(listed.entries.map((e) => [e.name, e]));
	assert.equal(byName.get(".git")?.kind, "directory");
	assert.equal(byName.get("to-outside")?.target, "outside");
	assert.equal(byName.get("linked-dir")?.target, "outside");
	assert.equal(byName.get("to-git")?.target, "outside");
	assert.equal(byName.get("inside-link")?.target, "file");
	assert.equal(byName.get("inside-link")?.size, 20);
	assert.equal(byName.get("src-link")?.target, "directory");
	assert.equal(byName.get("loop-a")?.target, "missing");
	assert.equal(byName.get("fifo")?.kind, "other");
	assert.deepEqual(listed.entries.slice(0, 2).map((e) => e.name), [".git", "src"], "folders first");
	assert.equal((await refusal(listFiles(root, { path: ".git" }))).code, "forbidden");
	assert.deepEqual(readdirSync(root).sort(), before);
});

test("what was opened is checked again: a file swapped for one outside between the check and the open is refused", async () => {
	// The open handle of the file outside stands for what a swapped-in link would have opened.
	const handle = await open(join(outside, "secret.txt"), "r");
	try {
		const error = await refusal(checkOpened(handle, root, join(root, "src", "a.ts"), "src/a.ts"));
		assert.equal(error.code, "forbidden");
		assert.match(error.message, /"src\/a.ts" leads outside/);
	} finally {
		await handle.close();
	}
	const inside = await open(join(root, "src", "a.ts"), "r");
	try {
		await checkOpened(inside, root, join(root, "src", "a.ts"), "src/a.ts");
	} finally {
		await inside.close();
	}
});
