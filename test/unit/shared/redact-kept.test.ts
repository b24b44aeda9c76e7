/**
 * redactKept: what is kept of a text cut anyway is redacted as in the whole text, from only the first
 * characters of it; a secret straddling the cut is masked, never shown in half.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { REDACTED, redactSecrets } from "../../../src/shared/redact.js";
import { REDACTION_MARGIN_CHARS, redactionWindow, redactKept } from "../../../src/shared/redact-kept.js";
import { interleavedText, SECRET_SAMPLES } from "../../support/redaction-inputs.js";

const JWT = SECRET_SAMPLES.find((s) => s.rule === "jwt")!.text;

test("a text within the window comes out as redactSecrets then the cut would give", () => {
	for (let seed = 1; seed <= 40; seed++) {
		const text = interleavedText(seed, 200 + seed * 97);
		for (const max of [0, 50, 200, 10_000]) {
			const whole = redactSecrets(text);
			assert.deepEqual(redactKept(text, max), { text: whole.slice(0, max), cut: whole.length > max }, `seed ${seed}, ${max}`);
		}
	}
	assert.deepEqual(redactKept(`a ${JWT} b`, 100), { text: `a ${REDACTED} b`, cut: false });
});

test("a secret straddling the cut is masked whole, also when what follows is megabytes", () => {
	const tail = " more".repeat(1024 * 1024);
	for (const sample of SECRET_SAMPLES) {
		for (const max of [1000, 1005, 1000 + Math.floor(sample.text.length / 2)]) {
			const text = `${"w ".repeat(500)}${sample.text}${tail}`;
			const kept = redactKept(text, max);
			assert.equal(kept.cut, true);
			assert.equal(kept.text, redactSecrets(text).slice(0, max), sample.text);
			assert.ok(!kept.text.includes(sample.secret.slice(0, 8)), `${sample.text} cut at ${max}: ${kept.text.slice(990)}`);
		}
	}
});

test("a word running past the margin from before the cut is left out, not shown in half", () => {
	// A JWT whose payload is longer than the margin: cut inside it, its rule would no longer see a token.
	const payload = "A".repeat(REDACTION_MARGIN_CHARS + 10);
	const text = `kept words ${JWT.replace(".", `.${payload}`)} after`;
	const kept = redactKept(text, 40);
	assert.deepEqual(kept, { text: "kept words ", cut: true });
	// One word from the start: nothing of it is shown.
	assert.deepEqual(redactKept("x".repeat(REDACTION_MARGIN_CHARS + 100), 10), { text: "", cut: true });
});

test("only the kept characters and the margin are looked at", () => {
	const seen: number[] = [];
	const prepare = (text: string) => {
		seen.push(text.length);
		return text;
	};
	redactKept("word ".repeat(1024 * 1024), 100, prepare);
	redactKept("word ".repeat(10), 100, prepare);
	// The window's last word, cut, is dropped ("wo" of "word ").
	assert.deepEqual(seen, [100 + REDACTION_MARGIN_CHARS - ((100 + REDACTION_MARGIN_CHARS) % 5), 50]);
});

test("redactionWindow cuts after the last character that ends a word", () => {
	assert.equal(redactionWindow("short", 10), "short");
	assert.equal(redactionWindow("one two three", 7), "one two");
	assert.equal(redactionWindow("one two three", 6), "one ");
	assert.equal(redactionWindow('k="v";next', 8), 'k="v";');
	assert.equal(redactionWindow("a,b&c'd\te", 8), "a,b&c'd\t");
	assert.equal(redactionWindow("unbroken", 4), "");
	// A half character at the cut belongs to the word dropped.
	assert.equal(redactionWindow("ab \u{1F600}", 4), "ab ");
});
