/**
 * A memory search's cost follows the store's size, not the query's: the recall tool's query is the model's
 * text, and each of its words was one scan of every entry. Timed per MiB of store against a bound far above
 * the linear cost (the fuzz's exception to untimed tests), and the bounds on the query checked as behaviour.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { LocalMemoryStore } from "../../../src/features/memory/local-store.js";
import { MAX_MATCHED_CHARS, MAX_QUERY_TERMS } from "../../../src/features/memory/query-matchers.js";
import { tempDir } from "../../support/skiff-process.js";

const MIB = 1024 * 1024;
/** Milliseconds a MiB of store may take: about ten times the cost measured here (under load). */
const BOUND_MS_PER_MIB = 1000;

test("a query of thousands of words, or one very long word, costs a bounded number of scans of the store", async () => {
	const store = new LocalMemoryStore(join(tempDir(), "entries.jsonl"));
	// Word starts everywhere, each a near miss of the query's words.
	const content = "w w1 w12x ".repeat(Math.floor((MIB - 100) / 10));
	for (let i = 0; i < 4; i++) await store.learn(content, [], "s");
	await store.search("warm", 1); // read and parsed once, as it stays while the file is unchanged
	const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(" ");
	const queries = [
		words(4_500), // each word a scan of every entry: seconds per MiB before
		words(20_000), // as a phrase, 150,000 characters: "Regular expression too large" before
		`${"w1-".repeat(2000)}b`,
		`${"w ".repeat(2000)}b${" w".repeat(2000)}`,
	];
	for (const query of queries) {
		const started = performance.now();
		await store.search(query, 10);
		const ms = performance.now() - started;
		assert.ok(ms <= 4 * BOUND_MS_PER_MIB, `a ${query.length}-character query over 4 MiB: ${ms.toFixed(0)} ms (at most ${4 * BOUND_MS_PER_MIB})`);
	}
});

test("the first distinct words count, each and the phrase on their first characters", async () => {
	const store = new LocalMemoryStore(join(tempDir(), "entries.jsonl"));
	const long = "x".repeat(MAX_MATCHED_CHARS);
	await store.learn("alpha beta", [], "s");
	await store.learn(`${long}yes`, [], "s");
	const words = Array.from({ length: MAX_QUERY_TERMS }, (_, i) => `w${i}`);
	const contents = async (query: string) => (await store.search(query, 10)).map((e) => e.content);
	assert.deepEqual(await contents([...words.slice(1), "alpha"].join(" ")), ["alpha beta"], "the 16th word counts");
	assert.deepEqual(await contents([...words, "alpha"].join(" ")), [], "the 17th does not");
	assert.deepEqual(await contents([...words.slice(1), "w1", "alpha"].join(" ")), ["alpha beta"], "a repeated word counts once");
	assert.deepEqual(await contents(`${long}no`), [`${long}yes`], "a word matches on its first characters");
	assert.deepEqual(await contents("beta alpha"), ["alpha beta"], "any word matches");
});
