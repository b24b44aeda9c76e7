/**
 * Opening files where a user or an agent may have put anything: a FIFO (or a link to one) is refused at once,
 * never waited on, by the synchronous and the asynchronous opener alike; links are followed or refused as asked.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { NotRegularFileError, openRegularFile, openRegularFileSync, readRegularFile, readRegularFileSync } from "../../../src/shared/regular-file.js";
import { tempDir } from "../../support/skiff-process.js";

const dir = tempDir();
const file = join(dir, "file.txt");
writeFileSync(file, "plain text");
const fifo = join(dir, "pipe");
execFileSync("mkfifo", [fifo]);
symlinkSync(fifo, join(dir, "to-pipe"));
symlinkSync(file, join(dir, "to-file"));
mkdirSync(join(dir, "folder"));

/** Asserts a refusal naming the path and what it is. */
const refused = (path: string, found: string) => (error: unknown) => {
	assert.ok(error instanceof NotRegularFileError, String(error));
	assert.equal(error.message, `${path} is not a regular file (${found})`);
	assert.equal(error.found, found);
	return true;
};

test("a regular file is read; a link to one only when links are followed", async () => {
	assert.equal(readRegularFileSync(file, "refuse"), "plain text");
	assert.equal(await readRegularFile(file, "refuse"), "plain text");
	assert.equal(readRegularFileSync(join(dir, "to-file"), "follow"), "plain text");
	assert.equal(await readRegularFile(join(dir, "to-file"), "follow"), "plain text");
	assert.throws(() => readRegularFileSync(join(dir, "to-file"), "refuse"), refused(join(dir, "to-file"), "a symbolic link, not followed"));
	await assert.rejects(readRegularFile(join(dir, "to-file"), "refuse"), refused(join(dir, "to-file"), "a symbolic link, not followed"));
	closeSync(openRegularFileSync(file, "refuse"));
	await (await openRegularFile(file, "refuse")).close();
});

test("a FIFO, directly or through a link, is refused at once (no writer ever comes)", async () => {
	assert.throws(() => openRegularFileSync(fifo, "refuse"), refused(fifo, "a FIFO"));
	await assert.rejects(openRegularFile(fifo, "refuse"), refused(fifo, "a FIFO"));
	assert.throws(() => readRegularFileSync(join(dir, "to-pipe"), "follow"), refused(join(dir, "to-pipe"), "a FIFO"));
	await assert.rejects(readRegularFile(join(dir, "to-pipe"), "follow"), refused(join(dir, "to-pipe"), "a FIFO"));
	assert.throws(() => readRegularFileSync(join(dir, "to-pipe"), "refuse"), refused(join(dir, "to-pipe"), "a symbolic link, not followed"));
});

test("a folder is refused as such; a missing file keeps the system's error", async () => {
	assert.throws(() => readRegularFileSync(join(dir, "folder"), "refuse"), refused(join(dir, "folder"), "a directory"));
	await assert.rejects(readRegularFile(join(dir, "folder"), "follow"), refused(join(dir, "folder"), "a directory"));
	assert.throws(() => readRegularFileSync(join(dir, "missing"), "refuse"), { code: "ENOENT" });
	await assert.rejects(readRegularFile(join(dir, "missing"), "refuse"), { code: "ENOENT" });
});
