/** Session download names: the session's name made safe as a file name, with an ASCII fallback, else the id. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { contentDisposition, downloadName } from "../../../src/shared/download-name.js";

test("an unnamed session, or one whose name is nothing a file may be called, is saved under its id", () => {
	for (const name of [undefined, "", "   ", "..", ". . .", "\u0000\u202e"]) {
		const saved = downloadName(name, "0190-abc", "html");
		assert.deepEqual(saved, { fileName: "skiff-session-0190-abc.html", asciiFileName: "skiff-session-0190-abc.html", named: false }, String(name));
		assert.equal(contentDisposition(saved), 'attachment; filename="skiff-session-0190-abc.html"');
	}
	assert.equal(downloadName(undefined, "../x y", "jsonl").fileName, "skiff-session-.._x_y.jsonl");
});

test("a name keeps its characters but never a separator, a control, a reserved character or an edge dot", () => {
	assert.deepEqual(downloadName("Refactor the parser", "id", "html"), { fileName: "Refactor the parser.html", asciiFileName: "Refactor the parser.html", named: true });
	assert.equal(downloadName("../../etc/passwd", "id", "html").fileName, "-..-etc-passwd.html");
	assert.equal(downloadName("a\nb\tc\u0007d", "id", "html").fileName, "a b c d.html");
	assert.equal(downloadName('x:y*z?"<w>|', "id", "html").fileName, "x-y-z-w-.html");
	assert.equal([...downloadName("é".repeat(500), "id", "html").fileName].length, 80 + ".html".length);
});

test("beyond ASCII the header carries the name itself and an ASCII fallback; all-foreign names fall back to the id", () => {
	const french = downloadName("Décisions d'API", "id", "html");
	assert.equal(french.asciiFileName, "Decisions d-API.html");
	assert.equal(contentDisposition(french), `attachment; filename="Decisions d-API.html"; filename*=UTF-8''D%C3%A9cisions%20d%27API.html`);
	const japanese = downloadName("設計メモ", "id-1", "jsonl");
	assert.equal(japanese.fileName, "設計メモ.jsonl");
	assert.equal(japanese.asciiFileName, "skiff-session-id-1.jsonl");
	assert.equal(decodeURIComponent(contentDisposition(japanese).split("UTF-8''")[1]!), "設計メモ.jsonl");
});

test("a secret in a name is masked before it becomes a file name", () => {
	const saved = downloadName("deploy with sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789", "id", "html");
	assert.ok(!saved.fileName.includes("abcdefghijklmnop"), saved.fileName);
	assert.ok(!contentDisposition(saved).includes("abcdefghijklmnop"));
});
