import assert from "node:assert/strict";
import { test } from "node:test";
import { RuntimeManager } from "../../../src/agent/runtime-manager.js";
import type { SessionSignal } from "../../../src/agent/types.js";
import { FakeCatalog, fakeOpener } from "../../support/fake-agent.js";

function setup(maxLoadedSessions: number) {
	const catalog = new FakeCatalog();
	const { openSession, handles } = fakeOpener(catalog);
	const runtime = new RuntimeManager({ cwd: "/p", catalog, openSession, maxLoadedSessions });
	const signals: Array<[string, SessionSignal]> = [];
	runtime.observe((sessionId, signal) => signals.push([sessionId, signal]));
	return { runtime, handles, signals, catalog };
}

test("the bound unloads the least recently used idle session, never a busy one or the primary", async () => {
	const { runtime, handles } = setup(3);
	const primary = await runtime.start({ kind: "new" });
	const a = await runtime.create();
	const b = await runtime.create();
	handles[1]!.busy = true; // a is running
	a.lastUsed = 1; // a is the oldest, but busy
	b.lastUsed = 2;
	primary.lastUsed = 0; // the primary is older still, but never unloaded
	const c = await runtime.create();
	assert.deepEqual(runtime.loadedSessions().map((s) => s.id).sort(), [primary.id, a.id, c.id].sort());
	assert.equal(handles[2]!.disposed, true, "b was unloaded");
	handles[3]!.busy = true;
	await assert.rejects(runtime.create(), /busy \(limit 3;/);
});

test("an unloaded session comes back on demand; observers see its events and its unloading in order", async () => {
	const { runtime, handles, signals } = setup(2);
	await runtime.start({ kind: "new" });
	const a = await runtime.create();
	handles[1]!.emit({ type: "agent_start" });
	handles[1]!.emit({ type: "agent_end" });
	await runtime.create(); // evicts a
	assert.equal(runtime.peek(a.id), undefined);
	const again = await runtime.get(a.id);
	assert.equal(again.id, a.id);
	handles.at(-1)!.emit({ type: "agent_start" });
	assert.deepEqual(
		signals.filter(([id]) => id === a.id).map(([, s]) => (s.kind === "event" ? s.event.type : `unloaded:${s.reason}`)),
		["agent_start", "agent_end", "unloaded:evicted", "agent_start"],
	);
	await assert.rejects(runtime.get("nope"), /Unknown session: nope/);
});

test("close refuses the primary and busy sessions; open returns the loaded session for the same file", async () => {
	const { runtime, handles } = setup(8);
	const primary = await runtime.start({ kind: "new" });
	const a = await runtime.create();
	await assert.rejects(runtime.close(primary.id), /primary/);
	handles[1]!.busy = true;
	await assert.rejects(runtime.close(a.id), /busy/);
	handles[1]!.busy = false;
	assert.equal(await runtime.open(a.id), a);
	await runtime.close(a.id);
	assert.equal(await runtime.close(a.id), false, "a known session that is not loaded is already closed");
	const reopened = await runtime.open(a.id);
	assert.equal(reopened.id, a.id);
	await runtime.shutdown();
	assert.ok(handles.every((h) => h.disposed));
});

test("a session with nothing recorded is not evicted into nothing: its id keeps working", async () => {
	const { runtime, handles, catalog } = setup(2);
	await runtime.start({ kind: "new" });
	const a = await runtime.create();
	handles[1]!.persisted = false; // nothing said yet: no file, so no catalog finds it
	catalog.files.delete(a.id);
	await runtime.create(); // evicts a
	assert.equal(runtime.peek(a.id), undefined);
	const again = await runtime.get(a.id);
	assert.equal(again.id, a.id, "created again under the same id");
});

test("a session opened from a path outside the catalog stays reachable by id after eviction", async () => {
	const catalog = new FakeCatalog();
	const { openSession } = fakeOpener(catalog);
	const runtime = new RuntimeManager({ cwd: "/p", catalog, openSession, maxLoadedSessions: 2 });
	await runtime.start({ kind: "new" });
	const a = await runtime.create();
	catalog.files.delete(a.id); // the catalog cannot find it (a file outside the sessions folder)
	await runtime.create(); // evicts a
	assert.equal((await runtime.get(a.id)).id, a.id);
});

test("when every other session is busy the documented error says so", async () => {
	const { runtime, handles } = setup(2);
	await runtime.start({ kind: "new" });
	await runtime.create();
	handles[1]!.busy = true;
	await assert.rejects(runtime.create(), /All 2 loaded sessions are busy \(limit 2; see --max-sessions\)/);
});

test("a session whose file another program changed is reloaded under its id before it is used, once", async () => {
	const { runtime, handles, signals } = setup(8);
	const primary = await runtime.start({ kind: "new" });
	const before = primary.handle;
	handles[0]!.changed = true;
	handles[0]!.unrecorded = 2;
	const [first, second] = await Promise.all([runtime.get(), runtime.get(primary.id)]);
	assert.equal(first, primary);
	assert.equal(second, primary, "the same LoadedSession, now with a fresh handle");
	assert.notEqual(primary.handle, before);
	assert.equal(primary.id, before.sessionId);
	assert.equal(handles.length, 2, "two concurrent commands reload it once");
	assert.equal(handles[0]!.disposed, true);
	handles[1]!.emit({ type: "agent_start" });
	handles[0]!.emit({ type: "agent_end" }); // the old handle no longer reaches observers
	const seen = signals.filter(([id]) => id === primary.id).map(([, s]) => (s.kind === "event" ? s.event : s));
	assert.deepEqual(seen, [{ type: "session_reloaded", reason: "changed_on_disk", discarded: 2 }, { type: "agent_start" }]);
	assert.equal(await runtime.open(primary.id), primary, "nothing changed since: no reload");
	assert.equal(handles.length, 2);
});

test("a busy session (a run or a shell command) is not reloaded until it is idle, nor closed or evicted", async () => {
	const { runtime, handles } = setup(2);
	const primary = await runtime.start({ kind: "new" });
	const other = await runtime.create();
	handles[1]!.changed = true;
	handles[1]!.bashRunning = true;
	assert.equal((await runtime.get(other.id)).handle, handles[1]);
	await assert.rejects(runtime.close(other.id), /busy/);
	await assert.rejects(runtime.create(), /busy \(limit 2;/);
	handles[1]!.bashRunning = false;
	handles[1]!.busy = true;
	assert.equal((await runtime.get(other.id)).handle, handles[1]);
	handles[1]!.busy = false;
	assert.notEqual((await runtime.get(other.id)).handle, handles[1], "reloaded once idle");
	assert.ok(primary);
});

test("prune never touches a loaded session, refuses a non-positive age, and lists without removing on a dry run", async () => {
	const { runtime, catalog } = setup(4);
	const primary = await runtime.start({ kind: "new" });
	const old = Date.now() - 40 * 24 * 60 * 60 * 1000;
	catalog.stale.push(
		{ id: primary.id, path: `/sessions/${primary.id}.jsonl`, modifiedMs: old, size: 10 },
		{ id: "gone", path: "/sessions/gone.jsonl", modifiedMs: old, size: 20 },
	);
	assert.throws(() => runtime.prune(0, false), /`olderThanDays` must be a number of days greater than 0 \(got 0\)/);
	assert.throws(() => runtime.prune(-1, false), /greater than 0/);
	const dry = await runtime.prune(30, true);
	assert.deepEqual(dry.files.map((f) => f.id), ["gone"]);
	assert.deepEqual(catalog.removed, []);
	const done = await runtime.prune(30, false);
	assert.deepEqual(done.files.map((f) => f.id), ["gone"]);
	assert.deepEqual(catalog.removed, ["/sessions/gone.jsonl"]);
	assert.deepEqual((await runtime.prune(30, false)).files, []);
});
