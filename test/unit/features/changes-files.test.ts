/**
 * The changes feature's file handling apart from the service: client paths confined to the working directory
 * (`..`, absolute, NUL, a symlinked parent leading out), tokens that tell a changed file, bounded diffs of a
 * huge change (git's output cut at a line's end, not failed), and the content kept outside git (bounded,
 * binary and oversized files not kept but still told apart).
 */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { ABSENT_TOKEN, fileToken } from "../../../src/features/changes/file-token.js";
import { gitFileDiff } from "../../../src/features/changes/git-changes.js";
import { countLines } from "../../../src/features/changes/line-count.js";
import { checkRelativePath, confinedPath } from "../../../src/features/changes/paths.js";
import { lineCounts, MAX_KEPT_BYTES, recordBefore, recordedChange, recordedDiff } from "../../../src/features/changes/recorded-changes.js";
import { MAX_DIFF_BYTES } from "../../../src/features/changes/schemas.js";
import { CodedError } from "../../../src/shared/errors.js";
import { baseRepository, removeTempRepos, tempRepoDir } from "../../support/git-repo.js";

after(removeTempRepos);

const code = (fn: () => unknown) => {
	try {
		fn();
		return "none";
	} catch (error) {
		return (error as CodedError).code;
	}
};

test("client paths: relative and inside, normalized (~ is a name); `..`, absolute, NUL and empty refused", () => {
	assert.equal(checkRelativePath("./a//b/./c.txt"), "a/b/c.txt");
	assert.equal(checkRelativePath("dir with space/x"), "dir with space/x");
	assert.equal(code(() => checkRelativePath("../x")), "forbidden");
	assert.equal(code(() => checkRelativePath("a/../../x")), "forbidden");
	assert.equal(code(() => checkRelativePath("a/../b")), "forbidden", "no `..` at all, even one that stays inside");
	assert.equal(code(() => checkRelativePath("/etc/passwd")), "forbidden");
	assert.equal(checkRelativePath("~/x"), "~/x", "a name under the root, never the home folder");
	assert.equal(code(() => checkRelativePath("a\0b")), "invalid_command");
	assert.equal(code(() => checkRelativePath("./")), "invalid_command");
	assert.equal(code(() => checkRelativePath("")), "invalid_command");
});

test("a path whose parent folder is a symbolic link leading out is refused; a link inside, or a missing folder, is fine", async () => {
	const root = tempRepoDir("skiff-changes-root-");
	const outside = tempRepoDir("skiff-changes-out-");
	mkdirSync(join(root, "real"));
	symlinkSync(outside, join(root, "out"));
	symlinkSync(join(root, "real"), join(root, "in"));
	await assert.rejects(confinedPath(root, "out/x.txt"), (error: CodedError) => error.code === "forbidden");
	await assert.rejects(confinedPath(root, "out/deeper/missing.txt"), (error: CodedError) => error.code === "forbidden");
	assert.equal(await confinedPath(root, "in/x.txt"), join(root, "in/x.txt"));
	assert.equal(await confinedPath(root, "gone/deeper/x.txt"), join(root, "gone/deeper/x.txt"));
	assert.equal(await confinedPath(root, "out"), join(root, "out"), "the link itself is inside (moved, never followed)");
});

test("tokens: content decides (same size, other bytes differ), a missing file is absent, a link is told by its target", async () => {
	const dir = tempRepoDir("skiff-changes-token-");
	const file = join(dir, "f.txt");
	writeFileSync(file, "aaaa");
	const first = await fileToken(file);
	writeFileSync(file, "bbbb");
	assert.notEqual(await fileToken(file), first);
	assert.equal(await fileToken(join(dir, "none")), ABSENT_TOKEN);
	symlinkSync("f.txt", join(dir, "l1"));
	symlinkSync("other", join(dir, "l2"));
	assert.match(await fileToken(join(dir, "l1")), /^link:/);
	assert.notEqual(await fileToken(join(dir, "l1")), await fileToken(join(dir, "l2")));
});

test("a huge change's diff is cut at a line's end, marked truncated, rather than failing", async () => {
	const repo = baseRepository(tempRepoDir("skiff-changes-big-"));
	writeFileSync(join(repo, "a.txt"), "line of some length to fill the diff quickly\n".repeat(60_000));
	const { diff, truncated, binary } = await gitFileDiff(repo, "HEAD", { path: "a.txt", status: "modified", added: 0, removed: 0, binary: false, token: "" });
	assert.equal(truncated, true);
	assert.equal(binary, false);
	assert.ok(diff.length <= MAX_DIFF_BYTES && diff.length > MAX_DIFF_BYTES - 100, `${diff.length} bytes`);
	assert.ok(diff.endsWith("\n"));
	assert.match(diff, /^diff --git a\/a.txt b\/a.txt\n/);
});

test("outside git: what is kept before a first edit, and how the change is told", async () => {
	const dir = tempRepoDir("skiff-changes-kept-");
	const budget = { files: 0, bytes: 0 };
	writeFileSync(join(dir, "text.txt"), "1\n2\n3\n");
	writeFileSync(join(dir, "big.txt"), "x".repeat(MAX_KEPT_BYTES + 1));
	writeFileSync(join(dir, "bin.dat"), Buffer.from([1, 0, 2]));
	writeFileSync(join(dir, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
	const text = await recordBefore(join(dir, "text.txt"), "text.txt", budget);
	assert.equal(text.content, "1\n2\n3\n");
	assert.equal((await recordBefore(join(dir, "new.txt"), "new.txt", budget)).content, null, "did not exist");
	assert.match((await recordBefore(join(dir, "big.txt"), "big.txt", budget)).omitted!, /over the 256 KiB kept/);
	assert.equal((await recordBefore(join(dir, "bin.dat"), "bin.dat", budget)).omitted, "binary");
	assert.equal((await recordBefore(join(dir, "latin1.txt"), "latin1.txt", budget)).omitted, "not UTF-8 text");
	assert.match((await recordBefore(join(dir, "text.txt"), "text.txt", { files: 0, bytes: 8 * 1024 * 1024 })).omitted!, /room for kept content is used up/);

	assert.equal(await recordedChange(dir, text), undefined, "unchanged: not listed");
	writeFileSync(join(dir, "text.txt"), "1\ntwo\n3\n4\n");
	const change = (await recordedChange(dir, text))!;
	assert.deepEqual([change.status, change.added, change.removed], ["modified", 2, 1]);
	assert.equal(recordedDiff("text.txt", change.before, change.now).diff, "--- a/text.txt\n+++ b/text.txt\n@@ -1,3 +1,4 @@\n 1\n-2\n+two\n 3\n+4\n");

	const big = await recordBefore(join(dir, "big.txt"), "big.txt", budget);
	assert.equal(await recordedChange(dir, big), undefined, "not kept, but its token tells it unchanged");
	writeFileSync(join(dir, "big.txt"), "y");
	const bigChange = (await recordedChange(dir, big))!;
	assert.equal(bigChange.status, "modified");
	assert.match(bigChange.note!, /was not kept/);
	assert.match(recordedDiff("big.txt", bigChange.before, bigChange.now).note!, /was not kept/);
});

test("line counts: jsdiff's counts, a last line without a newline counted", () => {
	assert.deepEqual(lineCounts("a\nb\nc\n", "a\nc\nd\ne\n"), { added: 2, removed: 1 });
	assert.equal(countLines(""), 0);
	assert.equal(countLines("a"), 1);
	assert.equal(countLines("a\nb\n"), 2);
	assert.equal(countLines("a\nb"), 2);
});
