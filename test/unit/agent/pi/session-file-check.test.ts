/** Damaged session files: each kind is repaired (original kept) or set aside, never lost, never silently. */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { checkSessionFile } from "../../../../src/agent/pi/session-file-check.js";

const AT = () => new Date("2026-11-23T10:00:00.000Z");
const header = JSON.stringify({ type: "session", version: 3, id: "abc", timestamp: "2026-11-23T09:00:00.000Z", cwd: "/p" });
const message = (id: string, parentId: string | null, text: string) =>
	JSON.stringify({ type: "message", id, parentId, timestamp: "2026-11-23T09:00:01.000Z", message: { role: "user", content: [{ type: "text", text }], timestamp: 1 } });

function fileWith(content: string): string {
	const path = join(mkdtempSync(join(tmpdir(), "skiff-check-")), "2026-11-23T09-00-00-000Z_abc.jsonl");
	writeFileSync(path, content);
	return path;
}

/** The user texts pi sees on the active branch after opening the file. */
function textsAfterOpen(path: string): string[] {
	const manager = SessionManager.open(path);
	return manager.buildSessionContext().messages.map((m) => ((m as { content: Array<{ text: string }> }).content[0]!.text));
}

test("a clean file is left alone", () => {
	const content = `${header}\n${message("a", null, "one")}\n`;
	const path = fileWith(content);
	assert.deepEqual(checkSessionFile(path, AT), { outcome: "clean", warnings: [] });
	assert.equal(readFileSync(path, "utf8"), content);
});

test("a torn last line is skipped and the file ends on a fresh line, so the next append cannot join it", () => {
	const path = fileWith(`${header}\n${message("a", null, "one")}\n{"type":"message","id":"b","par`);
	const check = checkSessionFile(path, AT);
	assert.equal(check.outcome, "repaired");
	assert.match(check.warnings[0]!, /:3: not valid JSON \(a write that did not finish\); skipped/);
	assert.ok(readFileSync(path, "utf8").endsWith("\n"));
	assert.ok(existsSync(check.keptAs!), "the original bytes are kept");
	assert.deepEqual(textsAfterOpen(path), ["one"]);
});

test("a complete last line without a line end gets one", () => {
	const path = fileWith(`${header}\n${message("a", null, "one")}`);
	const check = checkSessionFile(path, AT);
	assert.equal(check.outcome, "repaired");
	assert.match(check.warnings.join("\n"), /no line end; one was added/);
	assert.deepEqual(textsAfterOpen(path), ["one"]);
});

test("entries without a message (missing or null) are skipped with file and line, instead of crashing pi", () => {
	const path = fileWith(
		[header, message("a", null, "one"), JSON.stringify({ type: "message", id: "b", parentId: "a" }), JSON.stringify({ type: "message", id: "c", parentId: "b", message: null }), message("d", "c", "two")].join("\n") + "\n",
	);
	const check = checkSessionFile(path, AT);
	assert.equal(check.outcome, "repaired");
	assert.match(check.warnings.join("\n"), /:3: a message entry without a message; skipped/);
	assert.match(check.warnings.join("\n"), /:4: a message entry without a message; skipped/);
	assert.deepEqual(textsAfterOpen(path), ["one", "two"], "the entry after them is linked back into the history");
});

test("a broken parentId is linked to the entry before it, so no history is hidden", () => {
	const path = fileWith([header, message("a", null, "one"), message("b", "missing", "two"), message("c", "b", "three")].join("\n") + "\n");
	const check = checkSessionFile(path, AT);
	assert.match(check.warnings.join("\n"), /:3: parentId "missing" names no earlier entry/);
	assert.deepEqual(textsAfterOpen(path), ["one", "two", "three"]);
});

test("entries written again (pi continuing a file without an assistant reply) are dropped, so the conversation stays one chain", () => {
	const path = fileWith(`${header}\n${message("a", null, "one")}\n${message("a", null, "one")}\n${message("b", "a", "two")}\n`);
	const check = checkSessionFile(path, AT);
	assert.equal(check.outcome, "repaired");
	assert.match(check.warnings[0]!, /:3: repeats the id of an earlier entry \(a\); skipped/);
	assert.equal(readFileSync(path, "utf8"), `${header}\n${message("a", null, "one")}\n${message("b", "a", "two")}\n`);
	assert.deepEqual(textsAfterOpen(path), ["one", "two"]);
});

test("a byte-order mark is removed", () => {
	const path = fileWith(`\uFEFF${header}\n${message("a", null, "one")}\n`);
	assert.equal(checkSessionFile(path, AT).outcome, "repaired");
	assert.ok(readFileSync(path, "utf8").startsWith("{"));
	assert.deepEqual(textsAfterOpen(path), ["one"]);
});

test("a damaged first line sets the file aside under a name no catalog lists; it is never overwritten", () => {
	const content = `{"type":"sess\n${message("a", null, "one")}\n`;
	const path = fileWith(content);
	const check = checkSessionFile(path, AT);
	assert.equal(check.outcome, "set-aside");
	assert.equal(existsSync(path), false);
	assert.equal(readFileSync(check.keptAs!, "utf8"), content);
	assert.ok(!check.keptAs!.endsWith(".jsonl"));
	assert.match(check.warnings[0]!, /:1: the first line is not a session header/);
	assert.equal(readdirSync(join(path, "..")).length, 1);
});
