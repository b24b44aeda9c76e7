/**
 * The redactor runs in time linear in its text, whatever the text, up to the largest the service takes in
 * (a 4 MiB command frame: a prompt, a memory entry, an error quoting what was sent): for each rule, long runs
 * of its prefix, near misses repeated, the rules interleaved at random, and the "-eyJAAAAAAAA" run,
 * each timed per MiB against a bound far above the linear cost (a few tens of ms per MiB here), which a
 * quadratic scan passes by orders of magnitude (the JWT rule took 19 s on 300 KB). And it still masks every
 * shape, also inside such inputs.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_FRAME_BYTES } from "../../../src/listener/limits.js";
import { REDACTED, redactSecrets } from "../../../src/shared/redact.js";
import { Prng } from "../../support/prng.js";
import { ADVERSARIAL_SHAPES, adversarialText, interleavedText, SECRET_SAMPLES } from "../../support/redaction-inputs.js";

const MIB = 1024 * 1024;
/** Milliseconds a MiB may take (counted as at least one MiB, so that small sizes measure no noise). */
const BOUND_MS_PER_MIB = 400;
/** Growing sizes: a quadratic rule fails at the first, long before the last would end. */
const SIZES = [256 * 1024, MIB, MAX_FRAME_BYTES];

function assertLinear(label: string, text: string): string {
	const started = performance.now();
	const out = redactSecrets(text);
	const ms = performance.now() - started;
	const allowed = BOUND_MS_PER_MIB * Math.max(1, text.length / MIB);
	assert.ok(ms <= allowed, `${label}, ${(text.length / MIB).toFixed(2)} MiB: ${ms.toFixed(0)} ms (at most ${allowed.toFixed(0)})`);
	return out;
}

redactSecrets(SECRET_SAMPLES.map((s) => s.text).join(" ")); // compiled before anything is timed

for (const shape of ADVERSARIAL_SHAPES) {
	test(`linear time: ${shape.rule}, ${shape.name}`, () => {
		for (const size of SIZES) assertLinear(`${shape.rule}: ${shape.name}`, adversarialText(shape, size));
	});
}

test("linear time: the rules' prefixes and near misses interleaved at random", () => {
	for (let seed = 1; seed <= 8; seed++) assertLinear(`seed ${seed}`, interleavedText(seed, MIB));
	assertLinear("seed 9", interleavedText(9, MAX_FRAME_BYTES));
});

test("the JWT rule masks exactly what its plain form did (quadratic, so only on short texts)", () => {
	const plain = /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g;
	// Pieces of tokens and of the runs around them, and nothing another rule starts with.
	const pieces = ["eyJ", "eyJhbGciOiJIUzI1NiJ9", "-", ".", "A", "b", "9", "_", " ", "\n", "x", "abcdefgh", "é"];
	const prng = new Prng(20);
	for (let i = 0; i < 20_000; i++) {
		let text = "";
		for (let n = prng.int(40); n > 0; n--) text += prng.pick(pieces);
		assert.equal(redactSecrets(text), text.replace(plain, REDACTED), JSON.stringify(text));
	}
});

test("every shape is still masked, as before", () => {
	for (const sample of SECRET_SAMPLES) {
		assert.equal(redactSecrets(sample.text), sample.redacted, sample.text);
		assert.equal(redactSecrets(`seen: ${sample.text}\n`), `seen: ${sample.redacted}\n`, sample.text);
	}
});

test("every shape is masked at the start, in the middle and at the end of a large text", () => {
	const filler = "lorem ipsum dolor sit amet, ".repeat(Math.ceil(MAX_FRAME_BYTES / 2 / 28));
	for (const sample of SECRET_SAMPLES) {
		for (const [before, after] of [["", filler], [filler, filler], [filler, ""]] as const) {
			const out = redactSecrets(`${before}\n${sample.text}\n${after}`);
			assert.ok(out === `${before}\n${sample.redacted}\n${after}`, `${sample.text} after ${before.length} characters: ${out.slice(before.length, before.length + 80)}`);
		}
	}
});

test("every shape is masked between adversarial runs, and the whole stays linear", () => {
	for (const shape of ADVERSARIAL_SHAPES) {
		const run = adversarialText(shape, 64 * 1024);
		// "#" ends every rule's run, so no rule reaches from the run into the sample ("Bearer" and a newline
		// followed by `name: value` takes the name for the bearer's value, and the pair is then not seen).
		const text = SECRET_SAMPLES.map((sample) => `${run}\n#\n${sample.text}\n#\n`).join("");
		const out = assertLinear(`secrets between ${shape.rule}: ${shape.name}`, text);
		for (const sample of SECRET_SAMPLES) assert.ok(!out.includes(sample.secret), `${sample.text} shown between ${shape.name}`);
		assert.ok(out.includes(REDACTED));
	}
});
