import assert from "node:assert/strict";
import { test } from "node:test";
import { safeImageSrc, safeLinkHref } from "../../../web/src/render/safe-url.js";
import { settled, tail } from "../../../web/src/render/text-window.js";

const ORIGIN = "http://127.0.0.1:8787";

test("links: http, https, mailto and same-origin relative paths only", () => {
	for (const ok of ["https://example.com/a?b#c", "http://x.y", "mailto:a@b.c", "/web", "docs/x.md", "#section", "?q=1"]) {
		assert.equal(safeLinkHref(ok, ORIGIN), ok, ok);
	}
	for (const bad of ["javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:x", "data:text/html,x", "vbscript:x", "//evil.example", "/\\evil.example", "\\\\evil", "file:///etc/passwd", "java\nscript:x", ""]) {
		assert.equal(safeLinkHref(bad, ORIGIN), undefined, JSON.stringify(bad));
	}
});

test("images: base64 data URIs of whitelisted raster types only", () => {
	assert.ok(safeImageSrc("data:image/png;base64,iVBORw0KGgo="));
	assert.ok(safeImageSrc("data:image/jpeg;base64,/9j/4AAQ"));
	for (const bad of ["https://evil.example/x.png", "//evil/x.png", "data:image/svg+xml;base64,PHN2Zz4=", "data:text/html;base64,PHNjcmlwdD4=", "data:image/png,rawdata", "data:image/png;base64,abc def"]) {
		assert.equal(safeImageSrc(bad), undefined, bad);
	}
});

test("tool output keeps its last lines with a count; streaming text holds back its last word", () => {
	const text = Array.from({ length: 25 }, (_, i) => `line ${i + 1}`).join("\n");
	assert.deepEqual(tail(text, 10).omitted, 15);
	assert.equal(tail(text, 10).shown.split("\n")[0], "line 16");
	assert.deepEqual(tail("a\nb\n", 6), { shown: "a\nb", omitted: 0 });
	assert.equal(settled("hello sk-ant-ap"), "hello ");
	assert.equal(settled("done "), "done ");
	assert.equal(settled("partial"), "");
});
