/**
 * A large write's diff, against the real service and the fake model: cut at a line's end, and said so. Timed:
 * the service gives jsdiff 50 ms and omits the diff past that, so this file runs alone (run-suite.ts's
 * TIMED_FILES); the rest of the changes feature's tests (changes.test.ts) assert no time and run among others.
 */
import assert from "node:assert/strict";
import { realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { MAX_WRITE_DIFF_BYTES } from "../../src/features/changes/write-diff.js";
import { useFakeModelSkiff } from "../support/fake-model-home.js";
import { tempDir } from "../support/skiff-process.js";
import { toolResults, write } from "../support/write-calls.js";
import type { TestClient } from "../support/ws-client.js";

const service = useFakeModelSkiff();
let client: TestClient;
let dir: string;

before(async () => {
	await service.ready;
	client = service.client;
	dir = realpathSync(tempDir("skiff-changes-plain-"));
});

after(() => {
	if (dir) rmSync(dir, { recursive: true, force: true });
});

test("a large write's diff is cut at a line's end and says so", async () => {
	// Every tenth of 200 long lines changes: one hunk of over 200 KB, and few enough changes for jsdiff to be quick.
	const lines = (tag: string) => Array.from({ length: 200 }, (_, n) => `${n % 10 ? "same" : tag} line ${n} ${"-".repeat(1_000)}`).join("\n") + "\n";
	writeFileSync(join(dir, "long.txt"), lines("old"));
	const { live } = await toolResults(client, dir, [write("long.txt", lines("new"))]);
	const details = live[0]!.result.details;
	assert.equal(details.diffOmitted, undefined);
	assert.equal(details.diffTruncated, true);
	assert.ok(Buffer.byteLength(details.diff) <= MAX_WRITE_DIFF_BYTES);
	assert.ok(details.diff.endsWith("\n"));
	assert.match(details.diff, /^--- a\/long.txt\n\+\+\+ b\/long.txt\n@@ /);
});
