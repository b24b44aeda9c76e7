/** A session's folder is checked before the session is made: it exists, is a directory, and can be listed. */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { opendir, stat } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { directoryProblem } from "../../../src/shared/directory-check.js";
import { tempDir } from "../../support/skiff-process.js";

test("a readable directory, or a link to one, has no problem; anything else says what it is", async () => {
	const root = tempDir();
	mkdirSync(join(root, "project"));
	writeFileSync(join(root, "notes.txt"), "x");
	symlinkSync(join(root, "project"), join(root, "linked"));
	assert.equal(await directoryProblem(join(root, "project")), undefined);
	assert.equal(await directoryProblem(join(root, "linked")), undefined);
	assert.equal(await directoryProblem(join(root, "missing")), "does not exist");
	assert.equal(await directoryProblem(join(root, "notes.txt")), "is a regular file, not a directory");
	assert.equal(await directoryProblem(join(root, "notes.txt", "below")), "does not exist (a part of it is a file)");
	assert.equal(await directoryProblem("/dev/null"), "is a character device, not a directory");
});

test("a directory that cannot be listed is refused as not readable (simulated: tests run as root, who reads anything)", async () => {
	const root = tempDir();
	const denied = Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
	const probe = { stat, opendir: (async () => Promise.reject(denied)) as unknown as typeof opendir };
	assert.equal(await directoryProblem(root, probe), "is not readable (permission denied)");
	const odd = Object.assign(new Error("EIO"), { code: "EIO" });
	assert.equal(await directoryProblem(root, { stat, opendir: (async () => Promise.reject(odd)) as unknown as typeof opendir }), "cannot be read (EIO)");
});
