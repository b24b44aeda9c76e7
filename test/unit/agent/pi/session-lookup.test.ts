/**
 * The runtime's session lookups (findById, findReference, findNewest): off the event loop, and shared. A burst of
 * commands naming unknown ids refreshes the index once, not once per command; a file another process writes
 * after start is still found; nothing is read synchronously.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { type FolderReader, PiSessionCatalog, REAL_FOLDERS } from "../../../../src/agent/pi/session-catalog.js";

const header = (id: string) => `${JSON.stringify({ type: "session", version: 3, id, cwd: "/p" })}\n`;

/** A sessions folder of `count` files; its reads counted, and synchronous reads refused. */
function sessionsWith(count: number) {
	const root = mkdtempSync(join(tmpdir(), "skiff-lookup-"));
	const sessions = join(root, "sessions");
	const folder = join(sessions, "--p--");
	mkdirSync(folder, { recursive: true });
	for (let i = 0; i < count; i++) writeFileSync(join(folder, `2026-01-01T00-00-00-000Z_id${i}.jsonl`), header(`id${i}`));
	const past = new Date(Date.now() - 60_000);
	utimesSync(folder, past, past);
	utimesSync(sessions, past, past);
	const reads = { rootStats: 0, listings: 0, sync: 0 };
	const reader: FolderReader = {
		changed: (dir) => (reads.sync++, REAL_FOLDERS.changed(dir)),
		list: (dir) => (reads.sync++, REAL_FOLDERS.list(dir)),
		changedAsync: (dir) => {
			if (dir === sessions) reads.rootStats++;
			return REAL_FOLDERS.changedAsync(dir);
		},
		listAsync: (dir) => (reads.listings++, REAL_FOLDERS.listAsync(dir)),
	};
	return { sessions, folder, catalog: new PiSessionCatalog(sessions, reader), reads };
}

test("concurrent lookups of unknown ids share one refresh of the index, and read nothing synchronously", async () => {
	const { catalog, reads } = sessionsWith(500);
	assert.equal((await catalog.findById("id42"))?.id, "id42", "the first lookup builds the index");
	const [refreshes, rootStats, listings] = [catalog.refreshes, reads.rootStats, reads.listings];

	const lookups = Array.from({ length: 128 }, (_, i) =>
		i % 2 === 0 ? catalog.findById(`bogus${i}`) : catalog.findReference(`bogus${i}`, "/").then(() => "found", (error: Error) => error.message),
	);
	const answers = await Promise.all(lookups);
	answers.forEach((answer, i) => assert.equal(answer, i % 2 === 0 ? undefined : `No recorded session matches "bogus${i}"`));
	assert.equal(catalog.refreshes - refreshes, 1, "128 lookups in flight, one refresh");
	assert.equal(reads.rootStats - rootStats, 1, "the sessions folder was read once");
	assert.equal(reads.listings, listings, "no unchanged folder was listed again");
	assert.equal(reads.sync, 0, "no read on the event loop");

	// Lookups that arrive while a refresh runs wait for the next one, which they all share.
	const first = Array.from({ length: 64 }, (_, i) => catalog.findById(`early${i}`));
	await new Promise((resolve) => setImmediate(resolve)); // the shared refresh has begun reading
	const second = Array.from({ length: 64 }, (_, i) => catalog.findById(`late${i}`));
	assert.deepEqual(await Promise.all([...first, ...second]), Array(128).fill(undefined));
	assert.equal(catalog.refreshes - refreshes, 3, "one more refresh for those that came first, one for those that came later");
});

test("a known id is found without refreshing the index", async () => {
	const { catalog, reads } = sessionsWith(50);
	await catalog.findById("id0");
	const refreshes = catalog.refreshes;
	const found = await Promise.all(Array.from({ length: 50 }, (_, i) => catalog.findById(`id${i}`)));
	assert.deepEqual(found.map((f) => f?.id), Array.from({ length: 50 }, (_, i) => `id${i}`));
	assert.equal(catalog.refreshes, refreshes);
	assert.equal(reads.sync, 0);
});

test("a session file another process writes after start is found by id, prefix and as the newest", async () => {
	const { catalog, folder } = sessionsWith(3);
	assert.equal(await catalog.findById("written-later"), undefined);
	const path = join(folder, "2026-02-01T00-00-00-000Z_written-later.jsonl");
	const foreign = join(folder, "named-by-another-tool.jsonl");
	const write = `const fs = require("node:fs"); fs.writeFileSync(${JSON.stringify(path)}, ${JSON.stringify(header("written-later"))}); fs.writeFileSync(${JSON.stringify(foreign)}, ${JSON.stringify(header("foreign-name"))});`;
	execFileSync(process.execPath, ["-e", write]);

	assert.equal((await catalog.findById("written-later"))?.path, path);
	assert.equal((await catalog.findReference("written-l", "/")).id, "written-later", "prefixes too");
	assert.equal((await catalog.findById("foreign-name"))?.path, foreign, "a name without the id: its header is read");
	assert.ok([path, foreign].includes((await catalog.findNewest("/p"))!.path), "the newest of the project's sessions");
});

test("a file removed by another process is no longer found by id", async () => {
	const { catalog, folder } = sessionsWith(3);
	assert.equal((await catalog.findById("id1"))?.id, "id1");
	execFileSync(process.execPath, ["-e", `require("node:fs").unlinkSync(${JSON.stringify(join(folder, "2026-01-01T00-00-00-000Z_id1.jsonl"))})`]);
	assert.equal(await catalog.findById("id1"), undefined);
	await assert.rejects(catalog.findReference("id1", "/"), /No recorded session matches "id1"/);
});
