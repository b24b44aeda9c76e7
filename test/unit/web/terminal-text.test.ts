/** Terminal escapes are dropped from tool output before it is shown (and before it is redacted: see message-view.tsx). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { redact } from "../../../web/src/render/redact.js";
import { terminalText } from "../../../web/src/render/terminal-text.js";

test("colours, cursor moves, titles and lone escapes are dropped; text stays", () => {
	assert.equal(terminalText("\x1b[31mERROR\x1b[0m \x1b[1;4mbold\x1b[m"), "ERROR bold");
	assert.equal(terminalText("a\x1b[2K\x1b[1Gb"), "ab");
	assert.equal(terminalText("\x1b]0;my title\x07done"), "done");
	assert.equal(terminalText("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"), "link");
	assert.equal(terminalText("\x1b(Bplain\x1b"), "plain\x1b");
	assert.equal(terminalText("no escapes [31m here"), "no escapes [31m here");
});

test("an unterminated title or a long run of escapes is handled in linear time", () => {
	const text = "\x1b]".repeat(50_000) + "x".repeat(50_000);
	assert.ok(terminalText(text) === "x".repeat(50_000), "each lone title opener is dropped");
	assert.ok(terminalText("\x1b[".repeat(50_000)).length <= 100_000);
});

test("a secret split by colour codes is whole again before redaction sees it", () => {
	const shown = redact(terminalText("key: sk-ant-\x1b[1mapi03-abcdefghijklmnopqrstuvwxyz0123456789\x1b[0m"));
	assert.doesNotMatch(shown, /abcdefghijklmnop/);
});
