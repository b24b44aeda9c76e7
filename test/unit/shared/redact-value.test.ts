/** Redaction over parsed JSON and JSON Lines: every string but image data, unchanged lines kept byte for byte. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { redactJsonLine, redactValue } from "../../../src/shared/redact-value.js";

const KEY = "sk-abcdefghijklmnop0123";

test("every string is redacted, at any depth, keys and image data excepted", () => {
	const image = { type: "image", data: `iVBOR${KEY}w0KGgo=`, mimeType: "image/png" };
	const value = { [KEY]: 1, text: `key ${KEY}`, nested: [{ arguments: { command: `curl -H 'Authorization: Bearer ${KEY}'` } }, image], count: 3 };
	const { value: redacted, changed } = redactValue(value);
	assert.equal(changed, true);
	const text = JSON.stringify(redacted);
	assert.equal((text.match(new RegExp(KEY, "g")) ?? []).length, 2, "only the key name and the image data keep it");
	assert.equal((redacted as typeof value).text, "key [REDACTED]");
	assert.equal(image.data, `iVBOR${KEY}w0KGgo=`);
	assert.deepEqual(redactValue("plain").changed, false);
	assert.deepEqual(redactValue(`x ${KEY}`), { value: "x [REDACTED]", changed: true });
});

test("a deeply nested value does not overflow the stack", () => {
	let deep: unknown = `bottom ${KEY}`;
	for (let i = 0; i < 200_000; i++) deep = [deep];
	assert.equal(redactValue(deep).changed, true);
});

test("JSON lines: a line without secrets is kept as it is, others are re-serialized, other text redacted as text", () => {
	const clean = '{"a":  1, "b": "x"}';
	assert.equal(redactJsonLine(clean), clean);
	assert.equal(redactJsonLine(JSON.stringify({ text: KEY })), '{"text":"[REDACTED]"}');
	assert.equal(redactJsonLine(`{"torn": "${KEY}`), '{"torn": "[REDACTED]');
});
