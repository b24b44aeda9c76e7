/** pi's exported page sealed: its policy first in <head>, its embedded session redacted, other layouts refused. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { EXPORT_PAGE_POLICY, sealExportPage } from "../../../../src/agent/pi/export-page.js";

const KEY = "sk-abcdefghijklmnop0123";
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");
const page = (data: string) =>
	`<!DOCTYPE html>\n<html lang="en">\n<head>\n  <meta charset="UTF-8">\n  <style>body{}</style>\n</head>\n<body>\n  <script id="session-data" type="application/json">${data}</script>\n  <script>render()</script>\n</body>\n</html>\n`;

test("the policy is the first element of <head>, and the session's strings are redacted", () => {
	const sealed = sealExportPage(page(encode({ entries: [{ message: { content: [{ type: "text", text: `![x](https://img.example/a.png?k=${KEY})` }] } }] })));
	assert.ok(sealed.startsWith(`<!DOCTYPE html>\n<html lang="en">\n<head>\n  <meta http-equiv="Content-Security-Policy" content="${EXPORT_PAGE_POLICY}">\n  <meta charset="UTF-8">`));
	assert.ok(!sealed.includes(KEY));
	const data = /type="application\/json">([^<]+)</.exec(sealed)![1]!;
	assert.match(Buffer.from(data, "base64").toString("utf8"), /a\.png\?k=\[REDACTED\]/);
	assert.ok(sealed.endsWith("<script>render()</script>\n</body>\n</html>\n"), "the rest of the page is as pi wrote it");
});

test("a page laid out otherwise is refused, never passed on unredacted", () => {
	assert.throws(() => sealExportPage("<html><body>no head</body></html>"), /could not be made safe to keep \(it does not start with a <head>/);
	assert.throws(() => sealExportPage(page(encode({})).replace('id="session-data"', 'id="data"')), /holds 0 session data elements, not one/);
	const twice = page(encode({})).replace("</body>", `<script id="session-data" type="application/json">${encode({ text: KEY })}</script></body>`);
	assert.throws(() => sealExportPage(twice), /holds 2 session data elements/);
});
