import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { blockedParent, readSettingsFile, valueAt, withValue, writeSettingsFile } from "../../../src/settings/settings-file.js";
import { tempDir } from "../../support/skiff-process.js";

test("a missing file is empty; a file that does not parse names its path, line and column, never its content", () => {
	const dir = tempDir();
	const path = join(dir, "settings.json");
	assert.deepEqual(readSettingsFile(path).data, {});
	assert.equal(readSettingsFile(path).exists, false);
	writeFileSync(path, '{\n  "token": "sk-secret-value-0123456789",\n  oops\n}');
	assert.throws(
		() => readSettingsFile(path),
		(error: Error & { code?: string }) =>
			error.code === "io_error" && error.message.includes(`${path} is not valid JSON (line 3, column 3)`) && !error.message.includes("sk-secret"),
	);
	writeFileSync(path, '{"a": 1');
	assert.throws(() => readSettingsFile(path), /line 1, column 8/);
	writeFileSync(path, "[1, 2]");
	assert.throws(() => readSettingsFile(path), /must hold a JSON object/);
});

test("keys are dotted paths: set, read and removed without touching anything else", () => {
	const data = { theme: "dark", compaction: { enabled: true, custom: 1 }, memory: { backend: "off" } };
	assert.equal(valueAt(data, "compaction.enabled"), true);
	assert.equal(valueAt(data, "compaction.missing"), undefined);
	assert.equal(valueAt(data, "theme.x"), undefined);
	assert.equal(blockedParent(data, "theme.x"), "theme");
	assert.equal(blockedParent(data, "compaction.enabled"), undefined);

	const set = withValue(data, "retry.maxRetries", 5);
	assert.deepEqual(set, { ...data, retry: { maxRetries: 5 } });
	assert.deepEqual(Object.keys(set), ["theme", "compaction", "memory", "retry"], "order kept, new keys last");
	assert.deepEqual(data, { theme: "dark", compaction: { enabled: true, custom: 1 }, memory: { backend: "off" } }, "the original is not changed");
	assert.deepEqual(withValue(data, "compaction.enabled", undefined), { theme: "dark", compaction: { custom: 1 }, memory: { backend: "off" } });
	assert.deepEqual(withValue(data, "memory.backend", undefined), { theme: "dark", compaction: { enabled: true, custom: 1 } }, "an emptied parent goes");
	assert.deepEqual(withValue(data, "retry.enabled", undefined), data, "removing what is not there changes nothing");
});

test("a write is atomic, keeps unknown keys, is private when new, and leaves no temporary file", () => {
	const dir = tempDir();
	const path = join(dir, "sub", "settings.json");
	const empty = readSettingsFile(path);
	writeSettingsFile(path, withValue(empty.data, "steeringMode", "all"), empty.hash);
	assert.equal(readFileSync(path, "utf8"), '{\n  "steeringMode": "all"\n}\n');
	assert.equal(statSync(path).mode & 0o777, 0o600);

	writeFileSync(path, '{"unknown": {"deep": [1, {"x": null}]},   "steeringMode": "all"}');
	const read = readSettingsFile(path);
	writeSettingsFile(path, withValue(read.data, "compaction.enabled", false), read.hash);
	assert.deepEqual(JSON.parse(readFileSync(path, "utf8")), { unknown: { deep: [1, { x: null }] }, steeringMode: "all", compaction: { enabled: false } });
	assert.deepEqual(readdirSync(join(dir, "sub")), ["settings.json"]);
});

test("a write is refused when the file changed since it was read; a change of formatting alone is no change", () => {
	const dir = tempDir();
	const path = join(dir, "settings.json");
	writeFileSync(path, '{"a": 1, "b": [1, 2]}');
	const read = readSettingsFile(path);
	writeFileSync(path, '{\n\t"a": 1,\n\t"b": [ 1, 2 ]\n}\n');
	writeSettingsFile(path, withValue(read.data, "c", true), read.hash);
	assert.deepEqual(JSON.parse(readFileSync(path, "utf8")), { a: 1, b: [1, 2], c: true });

	const again = readSettingsFile(path);
	writeFileSync(path, '{"a": 2}');
	assert.throws(() => writeSettingsFile(path, withValue(again.data, "c", false), again.hash), (e: Error & { code?: string }) => e.code === "conflict");
	assert.equal(readFileSync(path, "utf8"), '{"a": 2}', "nothing was written");
	writeFileSync(path, "{ broken");
	assert.throws(() => writeSettingsFile(path, {}, again.hash), /not valid JSON/);
	assert.equal(readFileSync(path, "utf8"), "{ broken", "a file that cannot be read is never overwritten");
});
