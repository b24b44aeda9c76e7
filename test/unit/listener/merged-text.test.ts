import assert from "node:assert/strict";
import { test } from "node:test";
import { MergedText } from "../../../src/listener/merged-text.js";

test("merged deltas read back as their text in order, across the pieces joined a thousand at a time", () => {
	const deltas = Array.from({ length: 5000 }, (_, i) => String.fromCharCode(97 + (i % 26)) + (i % 7 === 0 ? "é🚀" : ""));
	const merged = new MergedText(deltas[0]!);
	for (const delta of deltas.slice(1)) merged.add(delta);
	assert.equal(merged.text(), deltas.join(""));
	assert.equal(new MergedText("only").text(), "only");
});
