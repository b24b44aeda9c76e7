/**
 * Reading git's NUL-separated output for the changes feature: renames, copies, binary files, unmerged paths and
 * names holding spaces, tabs, newlines and quotes, from real git output and from records cut short.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { decodeRecords, parseNulPaths, parseRawNumstat } from "../../../src/features/changes/git-output.js";
import { removeTempRepos, sh, tempRepoDir } from "../../support/git-repo.js";

after(removeTempRepos);

test("real git output: a rename to a name with a newline, a file with spaces and a tab, a binary file, a new and a deleted one", () => {
	const repo = tempRepoDir("skiff-changes-parse-");
	sh(repo, "init", "-q", "-b", "main");
	writeFileSync(join(repo, "old name.txt"), "1\n2\n3\n4\n5\n");
	writeFileSync(join(repo, "tab\there.txt"), "a\n");
	writeFileSync(join(repo, "blob.bin"), Buffer.from([0, 1, 2]));
	writeFileSync(join(repo, 'gone "quoted".txt'), "bye\n");
	sh(repo, "add", "-A");
	sh(repo, "commit", "-q", "-m", "first");
	sh(repo, "mv", "old name.txt", "new\nname.txt");
	writeFileSync(join(repo, "tab\there.txt"), "a\nb\n");
	writeFileSync(join(repo, "blob.bin"), Buffer.from([0, 9, 9]));
	sh(repo, "rm", "-q", 'gone "quoted".txt');
	writeFileSync(join(repo, "added.txt"), "x\ny\n");
	sh(repo, "add", "added.txt");
	const output = execFileSync("git", ["diff", "--raw", "--numstat", "-z", "-M", "HEAD"], { cwd: repo, encoding: "utf8" });
	const changes = parseRawNumstat(output).sort((a, b) => a.path.localeCompare(b.path));
	assert.deepEqual(changes, [
		{ path: "added.txt", status: "added", added: 2, removed: 0, binary: false, conflicted: false },
		{ path: "blob.bin", status: "modified", added: 0, removed: 0, binary: true, conflicted: false },
		{ path: 'gone "quoted".txt', status: "deleted", added: 0, removed: 1, binary: false, conflicted: false },
		{ path: "new\nname.txt", oldPath: "old name.txt", status: "renamed", added: 0, removed: 0, binary: false, conflicted: false },
		{ path: "tab\there.txt", status: "modified", added: 1, removed: 0, binary: false, conflicted: false },
	]);
});

test("written records: a copy is a new file, an unmerged path is conflicted once, and a record cut short is not misread", () => {
	const raw = [
		":100644 100644 aaa bbb C75",
		"src.txt",
		"copy.txt",
		":100644 100644 aaa bbb U",
		"both.txt",
		":100644 100644 aaa bbb U",
		"both.txt",
		"3\t1\t",
		"src.txt",
		"copy.txt",
		"2\t2\tboth.txt",
		"",
	].join("\0");
	assert.deepEqual(parseRawNumstat(raw), [
		{ path: "copy.txt", status: "added", added: 3, removed: 1, binary: false, conflicted: false },
		{ path: "both.txt", status: "modified", added: 2, removed: 2, binary: false, conflicted: true },
	]);
	assert.deepEqual(parseRawNumstat(":100644 100644 aaa bbb R100\0only-old-path"), [], "a rename without its new path is dropped");
	assert.deepEqual(parseRawNumstat("garbage\0:100644 100644 a b M\0kept.txt\0"), [{ path: "kept.txt", status: "modified", added: 0, removed: 0, binary: false, conflicted: false }]);
	assert.deepEqual(parseRawNumstat(""), []);
});

test("ls-files -z paths keep spaces and newlines, and no empty names", () => {
	assert.deepEqual(parseNulPaths("a b\0c\nd\0\0"), ["a b", "c\nd"]);
	assert.deepEqual(parseNulPaths(""), []);
});

test("a submodule's record (mode 160000 on either side) is marked; other records carry no mark", () => {
	const moved = ":160000 160000 aaaaaaa bbbbbbb M\0mod\0:100644 100644 ccccccc ddddddd M\0a.txt\0";
	const added = ":000000 160000 0000000 bbbbbbb A\0new-mod\0";
	const [mod, plain] = parseRawNumstat(moved);
	assert.deepEqual([mod!.path, mod!.submodule, plain!.path, "submodule" in plain!], ["mod", true, "a.txt", false]);
	assert.equal(parseRawNumstat(added)[0]!.submodule, true);
});

test("records read as bytes: UTF-8 names come back as they are, others with U+FFFD and named as undecodable", () => {
	const bytes = Buffer.concat([Buffer.from("caf\u00e9.txt\0lat"), Buffer.from([0xe9]), Buffer.from(".txt\0\0")]);
	const { text, undecodable } = decodeRecords(bytes.toString("latin1"));
	assert.deepEqual(parseNulPaths(text), ["café.txt", "lat\ufffd.txt"]);
	assert.deepEqual([...undecodable], ["lat\ufffd.txt"]);
});
