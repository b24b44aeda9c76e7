/** repositoryRoot asks git only where git could find a repository: outside one, no git process is started. */
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { test } from "node:test";
import { repositoryRoot } from "../../../src/features/git.js";
import { tempDir } from "../../support/skiff-process.js";

/** Puts first on PATH a `git` that leaves a mark each time it runs and answers as a work tree at `/top` would. */
function countingGit(): { marks: string; restore(): void } {
	const bin = join(tempDir(), "bin");
	const marks = join(tempDir(), "marks");
	mkdirSync(bin);
	writeFileSync(join(bin, "git"), `#!/bin/sh\necho "$@" >> ${marks}\necho /top\n`);
	chmodSync(join(bin, "git"), 0o755);
	const saved = { path: process.env.PATH, dir: process.env.GIT_DIR };
	process.env.PATH = `${bin}${delimiter}${saved.path}`;
	delete process.env.GIT_DIR;
	return {
		marks,
		restore() {
			process.env.PATH = saved.path;
			if (saved.dir === undefined) delete process.env.GIT_DIR;
			else process.env.GIT_DIR = saved.dir;
		},
	};
}

test("outside any repository no git runs; below a .git, a git folder or with GIT_DIR set, git is asked", async () => {
	const git = countingGit();
	try {
		const outside = join(tempDir(), "a", "b");
		mkdirSync(outside, { recursive: true });
		assert.equal(await repositoryRoot(outside), undefined);
		assert.equal(await repositoryRoot(join(tempDir(), "missing")), undefined, "a folder that does not exist");
		assert.ok(!existsSync(git.marks), "no git process for a folder outside every repository");

		const work = tempDir();
		mkdirSync(join(work, ".git"));
		mkdirSync(join(work, "src", "deep"), { recursive: true });
		assert.equal(await repositoryRoot(join(work, "src", "deep")), "/top", "a .git further up");
		const linked = tempDir();
		writeFileSync(join(linked, ".git"), "gitdir: /elsewhere\n"); // a linked worktree's or a submodule's
		assert.equal(await repositoryRoot(linked), "/top", "a .git file");
		const bare = tempDir();
		writeFileSync(join(bare, "HEAD"), "ref: refs/heads/main\n");
		assert.equal(await repositoryRoot(bare), "/top", "a git folder itself");
		process.env.GIT_DIR = "/some/repo.git";
		assert.equal(await repositoryRoot(outside), "/top", "the environment names the repository");
		rmSync(git.marks);
	} finally {
		git.restore();
	}
});
