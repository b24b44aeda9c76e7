/** The trash of session files (src/agent/pi/session-trash.ts): a move, never a removal, and a restore that never replaces. */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { SessionTrash } from "../../../../src/agent/pi/session-trash.js";
import { tempDir } from "../../../support/skiff-process.js";

function setup() {
	const agentDir = tempDir();
	const folder = join(agentDir, "sessions", "--work-p--");
	mkdirSync(folder, { recursive: true });
	const path = join(folder, "2026_abc.jsonl");
	writeFileSync(path, '{"type":"session","id":"abc"}\n');
	return { agentDir, path, trash: new SessionTrash(join(agentDir, "trash", "sessions")) };
}

test("put moves the file into a folder of its own with where it was; restore puts it back and empties the folder", async () => {
	const { agentDir, path, trash } = setup();
	const record = await trash.put(path, { sessionId: "abc", title: "t", cwd: "/work/p" });
	assert.ok(!existsSync(path));
	const folder = join(agentDir, "trash", "sessions", record.trashId);
	assert.deepEqual(readdirSync(folder).sort(), ["2026_abc.jsonl", "trashed.json"]);
	assert.equal(JSON.parse(readFileSync(join(folder, "trashed.json"), "utf8")).originalPath, path);
	assert.deepEqual((await trash.list()).map((r) => r.trashId), [record.trashId]);
	const restored = await trash.restore(record.trashId);
	assert.equal(restored.sessionId, "abc");
	assert.equal(readFileSync(path, "utf8"), '{"type":"session","id":"abc"}\n');
	assert.ok(!existsSync(folder));
	assert.deepEqual(await trash.list(), []);
});

test("restore refuses when a file is at the original path, and unknown or malformed ids", async () => {
	const { path, trash } = setup();
	const record = await trash.put(path, { sessionId: "abc", title: "t", cwd: "/work/p" });
	writeFileSync(path, "another\n");
	await assert.rejects(trash.restore(record.trashId), (e: any) => e.code === "conflict" && /already at/.test(e.message));
	assert.equal(readFileSync(path, "utf8"), "another\n", "never replaced");
	assert.equal((await trash.list()).length, 1, "still in the trash");
	await assert.rejects(trash.restore("1234567890123-deadbeef"), (e: any) => e.code === "not_found");
	await assert.rejects(trash.restore("../../x"), (e: any) => e.code === "not_found");
	await assert.rejects(trash.put(join(path, "..", "gone.jsonl"), { sessionId: "g", title: "", cwd: "" }), (e: any) => e.code === "not_found");
	assert.equal((await trash.list()).length, 1, "a failed put leaves nothing behind");
});
