/**
 * Which entries git ignores, for the Files listing: asked of `git check-ignore --stdin` for one page of names, any
 * name (a line break, a leading ":" that git would read as pathspec magic); and when git cannot answer (not a
 * repository, not installed, hung) no entry is marked, a note says why, and a hung git is stopped at the deadline.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { ignoredNames } from "../../../src/features/files/ignored.js";
import { removeTempRepos, sh, tempRepoDir } from "../../support/git-repo.js";

after(removeTempRepos);

const tempDir = () => tempRepoDir("skiff-files-ignored-");

/** Runs `work` with PATH set to `path` (git is looked up there). */
async function withPath<T>(path: string, work: () => Promise<T>): Promise<T> {
	const saved = process.env.PATH;
	process.env.PATH = path;
	try {
		return await work();
	} finally {
		process.env.PATH = saved;
	}
}

const NAMES = ["keep.txt", "drop.log", "build", "line\nbreak.log", ":!x.log", ":(top)keep.txt"];
const entries = NAMES.map((name) => ({ name, directory: name === "build" }));

test("in a repository: the ignored names of the page, whatever they hold", async () => {
	const repo = tempDir();
	sh(repo, "init", "-q");
	writeFileSync(join(repo, ".gitignore"), "*.log\nbuild/\n");
	mkdirSync(join(repo, "build"));
	const answer = await ignoredNames(repo, entries);
	assert.ok("ignored" in answer);
	assert.deepEqual([...answer.ignored].sort(), ["build", "drop.log", ":!x.log", "line\nbreak.log"].sort());
	assert.deepEqual(await ignoredNames(repo, [{ name: "keep.txt", directory: false }]), { ignored: new Set() }, "none ignored (git exits 1)");
});

test("outside a repository, without git, or with a git that hangs: nothing marked, and a note", async () => {
	const dir = tempDir();
	assert.deepEqual(await ignoredNames(dir, entries), { note: "not a git repository: ignored entries are not marked" });
	const empty = tempDir();
	assert.deepEqual(await withPath(empty, () => ignoredNames(dir, entries)), { note: "git is not installed: ignored entries are not marked" });
	const hanging = tempDir();
	writeFileSync(join(hanging, "git"), "#!/bin/sh\nexec sleep 30\n");
	chmodSync(join(hanging, "git"), 0o755);
	const answer = await withPath(`${hanging}:${process.env.PATH}`, () => ignoredNames(dir, entries, 300));
	assert.deepEqual(answer, { note: "git did not answer within 0.3 s: ignored entries are not marked" });
});
