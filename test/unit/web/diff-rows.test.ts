/** The page's diff parser: unified diffs, pi's edit diffs, and redaction across lines. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { addedRows, languageOf, parseDiff } from "../../../web/src/render/diff-rows.js";

test("a unified diff: header lines skipped, numbers from each hunk's header", () => {
	const rows = parseDiff("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -3,3 +3,4 @@ fn\n ctx\n-old\n+new\n+more\n\\ No newline at end of file\n");
	assert.deepEqual(rows, [
		{ k: "@", t: "@@ -3,3 +3,4 @@ fn" },
		{ k: " ", o: 3, n: 3, t: "ctx" },
		{ k: "-", o: 4, t: "old" },
		{ k: "+", n: 4, t: "new" },
		{ k: "+", n: 5, t: "more" },
	]);
});

test("pi's edit diff: numbers after the sign, context lines shifted by what was added, a gap for '...'", () => {
	const rows = parseDiff(" 1 one\n-2 two\n+2 zwei\n+3 drei\n 3 three\n   ...\n 9 nine");
	assert.deepEqual(rows, [
		{ k: " ", o: 1, n: 1, t: "one" },
		{ k: "-", o: 2, t: "two" },
		{ k: "+", n: 2, t: "zwei" },
		{ k: "+", n: 3, t: "drei" },
		{ k: " ", o: 3, n: 4, t: "three" },
		{ k: "@", t: "⋯" },
		{ k: " ", o: 9, n: 10, t: "nine" },
	]);
	assert.deepEqual(parseDiff("+ 9  indented"), [{ k: "+", n: 9, t: " indented" }], "padded numbers, the text's own spaces kept");
});

test("a secret is redacted whole, also across lines, before the diff is split; bad input gives no rows", () => {
	const key = "-----BEGIN RSA PRIVATE KEY-----\n+MIIEowIBAAKCAQEA\n+-----END RSA PRIVATE KEY-----";
	const rows = parseDiff(`@@ -1,1 +1,4 @@\n ctx\n+${key}\n+token=abcdef123456\n`);
	const text = JSON.stringify(rows);
	assert.doesNotMatch(text, /MIIE|abcdef123456/);
	assert.match(text, /\[REDACTED\]/);
	assert.deepEqual(parseDiff(""), []);
	assert.deepEqual(parseDiff("@@ nonsense\n\u0000\n"), []);
	assert.deepEqual(addedRows("a\nb\n"), [
		{ k: "+", n: 1, t: "a" },
		{ k: "+", n: 2, t: "b" },
	]);
	assert.equal(languageOf("src/x.TS"), "ts");
	assert.equal(languageOf("README.md"), "");
});
