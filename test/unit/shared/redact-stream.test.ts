/**
 * Streamed redaction (src/shared/redact-stream.ts): every secret shape redactSecrets knows, in every
 * surrounding and cut into pieces at random, never shows (not in a piece released, not in all of them
 * joined), and the pieces join to exactly what redactSecrets makes of the whole text; held text stays bounded.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_PEM_LINE_CHARS } from "../../../src/shared/pem-stream.js";
import { REDACTED, redactSecrets } from "../../../src/shared/redact.js";
import { LONG_RUN_CHARS, MAX_HELD_CHARS, redactedSoFar, StreamRedactor } from "../../../src/shared/redact-stream.js";
import { Prng } from "../../support/prng.js";
import { leaks, SECRET_SHAPES, secretTexts } from "../../support/secret-shapes.js";

/** The pieces a redactor releases for `pieces`, its end included. */
function stream(pieces: readonly string[], redactor = new StreamRedactor()): string[] {
	const out = pieces.map((piece) => redactor.push(piece));
	out.push(redactor.end());
	return out;
}

test("every secret shape, in every surrounding, cut at random into pieces of 1 to 8 characters, never shows", () => {
	let runs = 0;
	for (const { shape, text } of secretTexts()) {
		const whole = redactSecrets(text);
		assert.deepEqual(leaks(whole, [shape]), [], `redactSecrets itself masks ${shape.name} in ${JSON.stringify(text)}`);
		for (let seed = 1; seed <= 60; seed++) {
			const pieces = new Prng(seed).pieces(text, 1 + (seed % 8));
			const released = stream(pieces);
			for (const [n, piece] of released.entries()) assert.deepEqual(leaks(piece, [shape]), [], `${shape.name}, seed ${seed}: piece ${n} ${JSON.stringify(piece)}`);
			// What is released is only ever added to: no leak in the whole means none in what was shown before.
			const shown = released.join("");
			assert.deepEqual(leaks(shown), [], `${shape.name}, seed ${seed}: all that was shown`);
			assert.equal(shown, whole, `${shape.name}, seed ${seed}: the pieces join to the redacted whole`);
			runs++;
		}
	}
	assert.equal(runs, SECRET_SHAPES.length * 6 * 60);
});

test("one character at a time, and all at once, give the same text", () => {
	for (const { text } of secretTexts()) {
		assert.equal(stream([...text]).join(""), redactSecrets(text));
		assert.equal(stream([text]).join(""), redactSecrets(text));
	}
});

/** Pieces of text in which secrets, their names and delimiters meet in every way. */
const VOCABULARY = [
	" ", "  ", "\n", "\t", '"', "'", ",", ";", "&", ":", "=", ": ", "-", "-----", "BEGIN", "END", " RSA", " PRIVATE", " KEY",
	"PRIVATE KEY", "-----BEGIN ", "-----END ", "token", "Token", "api_key", "apikey", "auth-token", "secret", "password",
	"passwd", "Bearer", "bearer", "word", "x", "sk-", "ghp_", "npm_", "hf_", "eyJ", ".", "AKIA", "ABCDEFGHIJKLMNOP",
	"abcdefgh", "12345678", "_", REDACTED, "é", "/", "?", "==", "`",
];

test("random text of secrets, names, headers and delimiters, cut at random: the pieces join to redactSecrets of the whole", () => {
	for (let seed = 1; seed <= 20_000; seed++) {
		const prng = new Prng(seed);
		const parts: string[] = [];
		for (let n = 1 + prng.int(30); n > 0; n--) parts.push(prng.chance(0.1) ? prng.pick(SECRET_SHAPES).text : prng.pick(VOCABULARY));
		const text = parts.join("");
		const joined = stream(prng.pieces(text, 1 + prng.int(9))).join("");
		assert.equal(joined, redactSecrets(text), `seed ${seed}: ${JSON.stringify(text)}`);
	}
});

test("what is shown of a growing text never holds a piece of a secret, at any length", () => {
	for (const { shape, text } of secretTexts()) {
		for (let end = 0; end <= text.length; end++) assert.deepEqual(leaks(redactedSoFar(text.slice(0, end)), [shape]), [], `${shape.name} cut at ${end}`);
	}
	assert.equal(redactedSoFar("Here is sk-ant-api03-Zq8vK2"), "Here is ", "the unfinished word waits");
	assert.equal(redactedSoFar("Authorization: Bearer "), "Authorization: ", "a scheme waits for its token");
	assert.equal(redactedSoFar('{"password": "'), '{"', "a name waits for its value");
});

test("held text stays bounded: an endless word is released as the marker, the text after it shows again", () => {
	const redactor = new StreamRedactor();
	let out = "";
	let most = 0;
	const word = "A1b2C3d4".repeat(4);
	for (let i = 0; i < 10_000; i++) {
		out += redactor.push(word);
		most = Math.max(most, redactor.holding);
	}
	out += redactor.push(" and then plain words") + redactor.end();
	assert.ok(most <= MAX_HELD_CHARS + word.length, `held ${most} characters`);
	// What follows the word is dropped up to the next place to cut (here, the space).
	assert.equal(out, `${REDACTED}and then plain words`);
});

test("a PEM body is never held, however long; an endless header counts as a key", () => {
	const redactor = new StreamRedactor();
	let out = redactor.push("before -----BEGIN RSA PRIVATE KEY-----\n");
	for (let i = 0; i < 10_000; i++) {
		out += redactor.push(`${"Qm9keUxpbmU".repeat(6)}\n`);
		assert.ok(redactor.holding < 64, "the body is dropped as it comes");
	}
	out += redactor.push("-----END RSA PRIVATE KEY----- after") + redactor.end();
	assert.equal(out, `before ${REDACTED} after`);

	const header = new StreamRedactor();
	let shown = header.push("x -----BEGIN ");
	for (let i = 0; i < MAX_PEM_LINE_CHARS; i++) shown += header.push("AB ");
	shown += header.push("PRIVATE KEY-----\nsecretbody\n-----END RSA PRIVATE KEY----- y") + header.end();
	assert.equal(shown, `x ${REDACTED} y`);
});

test("leads without end and runs of white space stay bounded and never leak the value after them", () => {
	const redactor = new StreamRedactor();
	let out = "";
	for (let i = 0; i < 5_000; i++) {
		out += redactor.push("token: ");
		assert.ok(redactor.holding <= MAX_HELD_CHARS + 7);
	}
	out += redactor.push("hunter2hunter2 done") + redactor.end();
	assert.equal(out, `${REDACTED}done`);

	const spaces = new StreamRedactor();
	let text = spaces.push("password:");
	for (let i = 0; i < 5_000; i++) text += spaces.push("    ");
	text += spaces.push("hunter2hunter2 done") + spaces.end();
	assert.equal(text, `${REDACTED}done`);
});

test("a redactor is ready for another text after its end", () => {
	const redactor = new StreamRedactor();
	assert.equal(stream(["-----BEGIN RSA PRIVATE KEY-----\nabc"], redactor).join(""), REDACTED);
	assert.equal(stream(["plain ", "text"], redactor).join(""), "plain text");
});

test("showLongRuns: an enormous word shows as it grows, and the pieces still join to redactSecrets of the whole", () => {
	const redactor = new StreamRedactor({ showLongRuns: true });
	const word = "A1b2C3d4".repeat(4);
	let out = "";
	let most = 0;
	for (let i = 0; i < 500; i++) {
		out += redactor.push(word);
		most = Math.max(most, redactor.holding);
		if (i === 20) assert.ok(out.length > 20 * word.length - LONG_RUN_CHARS, `shown ${out.length} characters while it streams`);
	}
	out += redactor.push(" and then plain words") + redactor.end();
	assert.ok(most <= LONG_RUN_CHARS + word.length, `held ${most} characters`);
	assert.equal(out, `${word.repeat(500)} and then plain words`);
});

test("showLongRuns: a long run with a secret or a pair inside is held from it as before, never leaking it", () => {
	for (const { shape, text } of secretTexts()) {
		// Kept apart from the secret by a non-word character, so that the secret is one in the whole text too.
		for (const filler of ["x".repeat(600), "a-b.c".repeat(100)]) {
			const whole = `${filler}/${text}/${filler}`;
			for (let seed = 1; seed <= 10; seed++) {
				const released = stream(new Prng(seed).pieces(whole, 1 + (seed % 8)), new StreamRedactor({ showLongRuns: true }));
				for (const [n, piece] of released.entries()) assert.deepEqual(leaks(piece, [shape]), [], `${shape.name}, seed ${seed}: piece ${n}`);
				assert.equal(released.join(""), redactSecrets(whole), `${shape.name}, seed ${seed}: the pieces join to the redacted whole`);
			}
		}
	}
});

test("showLongRuns: random long runs of secrets, names and delimiters, cut at random: the pieces join to redactSecrets of the whole", () => {
	for (let seed = 1; seed <= 5_000; seed++) {
		const prng = new Prng(seed);
		const parts: string[] = [];
		for (let n = 1 + prng.int(30); n > 0; n--) parts.push(prng.chance(0.1) ? prng.pick(SECRET_SHAPES).text : prng.chance(0.2) ? "Qx9".repeat(100) : prng.pick(VOCABULARY));
		const text = parts.join("");
		const joined = stream(prng.pieces(text, 1 + prng.int(40)), new StreamRedactor({ showLongRuns: true })).join("");
		assert.equal(joined, redactSecrets(text), `seed ${seed}: ${JSON.stringify(text)}`);
	}
});
