/** Where export_html may write: inside the session's cwd over the listener, anywhere in --mode rpc. */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { exportTarget } from "../../../src/protocol/commands/export.js";

const refused = (code: string, pattern: RegExp) => (error: unknown) =>
	(error as { code?: string }).code === code && pattern.test((error as Error).message);

test("over the listener an export is an .html file inside the session's cwd", () => {
	const cwd = mkdtempSync(join(tmpdir(), "skiff-export-"));
	const outside = mkdtempSync(join(tmpdir(), "skiff-export-out-"));
	mkdirSync(join(cwd, "out"));
	mkdirSync(join(cwd, "..dots"));
	assert.equal(exportTarget(cwd, "page.html", false), join(cwd, "page.html"));
	assert.equal(exportTarget(cwd, "out/page.htm", false), join(cwd, "out", "page.htm"));
	assert.equal(exportTarget(cwd, join(cwd, "out", "p.HTML"), false), join(cwd, "out", "p.HTML"), "an absolute path inside is fine");
	assert.equal(exportTarget(cwd, "..dots/p.html", false), join(cwd, "..dots", "p.html"), "a folder named ..x is inside");
	assert.throws(() => exportTarget(cwd, "../escape.html", false), refused("forbidden", /inside the session's cwd/));
	assert.throws(() => exportTarget(cwd, join(outside, "p.html"), false), refused("forbidden", /inside the session's cwd/));
	assert.throws(() => exportTarget(cwd, "notes.txt", false), refused("invalid_command", /must name an \.html file/));
	assert.throws(() => exportTarget(cwd, "missing/p.html", false), refused("not_found", /does not exist/));
	symlinkSync(outside, join(cwd, "link"));
	assert.throws(() => exportTarget(cwd, "link/p.html", false), refused("forbidden", /inside the session's cwd/), "a linked folder that leads out");
	writeFileSync(join(outside, "target.html"), "x");
	symlinkSync(join(outside, "target.html"), join(cwd, "trap.html"));
	assert.throws(() => exportTarget(cwd, "trap.html", false), refused("forbidden", /symbolic link/));
});

test("in --mode rpc (the operator's own process) any path is accepted, relative to the session's cwd", () => {
	const cwd = mkdtempSync(join(tmpdir(), "skiff-export-"));
	const outside = mkdtempSync(join(tmpdir(), "skiff-export-out-"));
	assert.equal(exportTarget(cwd, join(outside, "notes.txt"), true), join(outside, "notes.txt"));
	assert.throws(() => exportTarget(cwd, "missing/p.html", true), refused("not_found", /does not exist/));
});
