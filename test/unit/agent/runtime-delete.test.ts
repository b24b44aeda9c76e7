/** RuntimeManager.delete and restore, and the list's kinds, over a pretend catalog: refusals first, then the move. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { RuntimeManager } from "../../../src/agent/runtime-manager.js";
import type { SessionSignal } from "../../../src/agent/types.js";
import { FakeCatalog, fakeOpener } from "../../support/fake-agent.js";

function setup() {
	const catalog = new FakeCatalog();
	const { openSession, handles } = fakeOpener(catalog);
	const runtime = new RuntimeManager({ cwd: "/p", catalog, openSession });
	const signals: Array<[string, SessionSignal]> = [];
	runtime.observe((sessionId, signal) => signals.push([sessionId, signal]));
	return { runtime, handles, signals, catalog };
}

test("delete refuses the primary, a busy session, one with nothing recorded and an unknown one", async () => {
	const { runtime, handles, catalog } = setup();
	const primary = await runtime.start({ kind: "new" });
	const busy = await runtime.create();
	handles[1]!.busy = true;
	const unrecorded = await runtime.create();
	catalog.files.delete(unrecorded.id);
	await assert.rejects(runtime.delete(primary.id), (e: any) => e.code === "conflict" && /primary/.test(e.message));
	await assert.rejects(runtime.delete(busy.id), (e: any) => e.code === "busy");
	await assert.rejects(runtime.delete(unrecorded.id), (e: any) => e.code === "conflict" && /nothing recorded/.test(e.message));
	await assert.rejects(runtime.delete("nope"), (e: any) => e.code === "unknown_session");
	assert.equal(catalog.trashed.size, 0);
});

test("delete unloads the session (reason deleted), trashes its file and tells the other sessions; restore tells them too", async () => {
	const { runtime, signals, catalog } = setup();
	const primary = await runtime.start({ kind: "new" });
	const doomed = await runtime.create();
	const trashed = await runtime.delete(doomed.id);
	assert.equal(runtime.peek(doomed.id), undefined);
	assert.ok(signals.some(([id, s]) => id === doomed.id && s.kind === "unloaded" && s.reason === "deleted"));
	const told = (change: string) => signals.some(([id, s]) => id === primary.id && s.kind === "event" && s.event.type === "session_list_changed" && s.event.change === change && s.event.changedSessionId === doomed.id);
	assert.ok(told("deleted"));
	await assert.rejects(runtime.get(doomed.id), (e: any) => e.code === "unknown_session", "not brought back from memory");
	await runtime.restore(trashed.trashId);
	assert.ok(told("restored"));
	assert.ok(catalog.files.has(doomed.id));
});

test("the list hides sessions a feature made unless asked, and marks forks and children", async () => {
	const { runtime } = setup();
	const primary = await runtime.start({ kind: "new" });
	const job = await runtime.create({ parentSessionId: primary.id, recordAs: { kind: "job", ownerId: "j1" } });
	const child = await runtime.create({ parentSessionId: primary.id });
	const rows = await runtime.list("project");
	assert.deepEqual(rows.map((r) => r.sessionId).sort(), [primary.id, child.id].sort());
	assert.equal(rows.find((r) => r.sessionId === child.id)?.kind, "fork");
	const all = await runtime.list("project", { internal: true });
	const jobRow = all.find((r) => r.sessionId === job.id);
	assert.deepEqual([jobRow?.kind, jobRow?.parentSessionId, jobRow?.ownerId], ["job", primary.id, "j1"]);
});
