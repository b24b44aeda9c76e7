/** The session index: lookups of unknown ids list no folder that did not change; new files are found. */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { PiSessionCatalog, REAL_FOLDERS } from "../../../../src/agent/pi/session-catalog.js";

function sessionsWith(count: number) {
	const root = mkdtempSync(join(tmpdir(), "skiff-catalog-"));
	const sessions = join(root, "sessions");
	const folder = join(sessions, "--p--");
	mkdirSync(folder, { recursive: true });
	for (let i = 0; i < count; i++) {
		writeFileSync(join(folder, `2026-01-01T00-00-00-000Z_id${i}.jsonl`), `${JSON.stringify({ type: "session", version: 3, id: `id${i}`, cwd: "/p" })}\n`);
	}
	// Settle the folders' change times (a change in the last second is not trusted to be final).
	const past = new Date(Date.now() - 60_000);
	utimesSync(folder, past, past);
	utimesSync(sessions, past, past);
	const listings: string[] = [];
	const catalog = new PiSessionCatalog(sessions, { ...REAL_FOLDERS, list: (dir) => (listings.push(dir), REAL_FOLDERS.list(dir)) });
	return { root, sessions, folder, catalog, listings };
}

test("unknown ids cost no folder listing once the index is built", () => {
	const { catalog, listings } = sessionsWith(500);
	assert.equal(catalog.byId("id42")?.id, "id42");
	const built = listings.length;
	for (let i = 0; i < 128; i++) assert.equal(catalog.byId(`bogus${i}`), undefined);
	assert.equal(listings.length, built, "no folder was listed again");
});

test("a file added or removed later is seen by the next lookup", () => {
	const { catalog, folder } = sessionsWith(3);
	assert.equal(catalog.byId("late"), undefined);
	writeFileSync(join(folder, "2026-01-02T00-00-00-000Z_late.jsonl"), `${JSON.stringify({ type: "session", version: 3, id: "late", cwd: "/p" })}\n`);
	assert.equal(catalog.byId("late")?.id, "late");
	assert.equal(catalog.resolve("lat", "/").id, "late", "prefixes too");
});

test("switch by path stays in the sessions folder unless the operator asked (command line)", () => {
	const { catalog, root, folder } = sessionsWith(1);
	const outside = join(root, "outside.jsonl");
	writeFileSync(outside, `${JSON.stringify({ type: "session", version: 3, id: "out", cwd: "/p" })}\n`);
	assert.throws(() => catalog.resolve(outside, "/"), /outside the sessions folder/);
	assert.throws(() => catalog.resolve(join(folder, "..", "..", "outside.jsonl"), "/"), /outside the sessions folder/);
	const link = join(folder, "2026-01-03T00-00-00-000Z_link.jsonl");
	symlinkSync(outside, link);
	assert.throws(() => catalog.resolve(link, "/"), /outside the sessions folder/, "a link inside pointing outside is refused");
	assert.equal(catalog.resolve(outside, "/", { anywhere: true }).id, "out");
	assert.equal(catalog.resolve(join(folder, "2026-01-01T00-00-00-000Z_id0.jsonl"), "/").id, "id0");
});

test("a session file with a byte-order mark is found by path as by id", () => {
	const { catalog, folder } = sessionsWith(0);
	const path = join(folder, "foreign-name.jsonl");
	writeFileSync(path, `\uFEFF${JSON.stringify({ type: "session", version: 3, id: "bom", cwd: "/p" })}\n`);
	assert.equal(catalog.resolve(path, "/").id, "bom");
	assert.equal(catalog.byId("bom")?.path, path);
});

test("stale files: only regular session files of the layout, older than the cutoff; each checked again before removal", async () => {
	const { catalog, root, sessions, folder } = sessionsWith(3);
	const day = 24 * 60 * 60 * 1000;
	const age = (path: string, days: number) => utimesSync(path, new Date(Date.now() - days * day), new Date(Date.now() - days * day));
	const file = (i: number) => join(folder, `2026-01-01T00-00-00-000Z_id${i}.jsonl`);
	age(file(0), 10);
	age(file(1), 20);
	const outside = join(root, "2020_outside.jsonl");
	writeFileSync(outside, `${JSON.stringify({ type: "session", version: 3, id: "outside", cwd: "/p" })}\n`);
	age(outside, 50);
	symlinkSync(outside, join(folder, "2020_link.jsonl"));
	const elsewhere = join(root, "elsewhere");
	mkdirSync(elsewhere);
	writeFileSync(join(elsewhere, "2020_x.jsonl"), `${JSON.stringify({ type: "session", version: 3, id: "x", cwd: "/p" })}\n`);
	age(join(elsewhere, "2020_x.jsonl"), 50);
	symlinkSync(elsewhere, join(sessions, "--linked--"));
	mkdirSync(join(sessions, "not-a-project"));
	writeFileSync(join(sessions, "not-a-project", "2020_y.jsonl"), `${JSON.stringify({ type: "session", version: 3, id: "y", cwd: "/p" })}\n`);
	age(join(sessions, "not-a-project", "2020_y.jsonl"), 50);
	writeFileSync(join(folder, "2020_headerless.jsonl"), '{"type":"message"}\n');
	age(join(folder, "2020_headerless.jsonl"), 50);

	const cutoff = Date.now() - 5 * day;
	const stale = await catalog.staleFiles(cutoff);
	assert.deepEqual(stale.map((f) => f.id), ["id1", "id0"], "oldest first, nothing else");
	await assert.rejects(catalog.removeStale({ ...stale[0]!, path: outside }, cutoff), /not in the sessions folder's layout/);
	await assert.rejects(catalog.removeStale({ ...stale[0]!, path: join(elsewhere, "2020_x.jsonl") }, cutoff), /not in the sessions folder's layout/);
	writeFileSync(file(0), `${JSON.stringify({ type: "session", version: 3, id: "id0", cwd: "/p" })}\n`); // touched: newer now
	await assert.rejects(catalog.removeStale(stale[1]!, cutoff), /changed since it was listed/);
	await catalog.removeStale(stale[0]!, cutoff);
	assert.deepEqual(await catalog.staleFiles(cutoff), []);
	assert.equal(catalog.byId("id1"), undefined, "the index forgets it");
});
