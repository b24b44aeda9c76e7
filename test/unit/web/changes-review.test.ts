/** The pending review's prompt: each comment's file, lines and snapshot; a stale comment still sends its snapshot, marked. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseDiff } from "../../../web/src/render/diff-rows.js";
import { type ReviewComment, reviewPrompt, snippetAt } from "../../../web/src/state/changes-state.js";

const rows = parseDiff("@@ -1,3 +1,3 @@\n keep\n-old one\n+new one\n+new two\n");

test("a comment's snippet is the chosen side's lines: new lines (and context), or removed ones", () => {
	assert.equal(snippetAt(rows, { from: 2, to: 3, side: "new" }), "new one\nnew two");
	assert.equal(snippetAt(rows, { from: 1, to: 2, side: "new" }), "keep\nnew one");
	assert.equal(snippetAt(rows, { from: 2, to: 2, side: "old" }), "old one");
	assert.equal(snippetAt(rows, { from: 40, to: 41, side: "new" }), "", "lines no longer there");
});

test("one prompt for the whole review; a stale comment is marked and keeps the code it was written on", () => {
	const comments: ReviewComment[] = [
		{ id: 1, path: "src/a.ts", from: 2, to: 3, side: "new", snippet: "new one\nnew two", text: "  Rename these.  " },
		{ id: 2, path: "b.md", from: 2, to: 2, side: "old", snippet: "has ``` inside", text: "Why remove this?" },
	];
	const prompt = reviewPrompt(comments, (c) => c.id === 2);
	assert.equal(
		prompt,
		"Please address my review of your changes (2 comments):\n\n" +
			"1. src/a.ts, lines 2-3:\n```\nnew one\nnew two\n```\nRename these.\n\n" +
			"2. b.md, removed line 2 (stale: the code has changed or moved since this comment was written; the snippet is as it was then):\n~~~~\nhas ``` inside\n~~~~\nWhy remove this?",
	);
});
