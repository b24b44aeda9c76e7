import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionCatalog, SessionFileRef } from "../../../src/agent/pi/session-catalog.js";
import type { SessionSource } from "../../../src/agent/pi/session.js";
import { RuntimeManager } from "../../../src/agent/runtime-manager.js";
import type { AgentHandle, RuntimeEvent } from "../../../src/agent/types.js";

/** A handle that records nothing and runs nothing: enough to drive the manager's bookkeeping. */
class FakeHandle implements Partial<AgentHandle> {
	busy = false;
	disposed = false;
	private listeners = new Set<(e: RuntimeEvent) => void>();
	constructor(readonly sessionId: string, readonly sessionFile: string | undefined, readonly cwd = "/p") {}
	get isBusy() {
		return this.busy;
	}
	emit(event: RuntimeEvent) {
		for (const l of this.listeners) l(event);
	}
	subscribe(listener: (e: RuntimeEvent) => void) {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}
	state() {
		return { sessionId: this.sessionId, cwd: this.cwd, thinkingLevel: "off", isStreaming: this.busy, isCompacting: false, messageCount: 0, pendingMessageCount: 0, autoCompactionEnabled: true, persisted: true } as ReturnType<AgentHandle["state"]>;
	}
	async settle() {}
	dispose() {
		this.disposed = true;
	}
}

function setup(maxLoadedSessions: number) {
	const files = new Map<string, SessionFileRef>();
	const handles: FakeHandle[] = [];
	let counter = 0;
	const catalog = {
		byId: (id: string) => files.get(id),
		resolve: (ref: string) => {
			const hit = files.get(ref) ?? [...files.values()].find((f) => f.path === ref);
			if (!hit) throw new Error(`No recorded session matches "${ref}"`);
			return hit;
		},
		newestFor: () => undefined,
		list: async () => [],
	} as unknown as SessionCatalog;
	const openSession = async (source: SessionSource) => {
		let id: string;
		if (source.kind === "file") id = [...files.values()].find((f) => f.path === source.path)!.id;
		else id = `s${++counter}`;
		const path = `/sessions/${id}.jsonl`;
		files.set(id, { id, path, modifiedMs: 0 });
		const handle = new FakeHandle(id, path);
		handles.push(handle);
		return handle as unknown as AgentHandle;
	};
	const runtime = new RuntimeManager({ cwd: "/p", catalog, openSession, createEventShaper: () => (e) => e, maxLoadedSessions });
	return { runtime, handles };
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
	await assert.rejects(runtime.create(), /busy \(limit 3\)/);
});

test("an unloaded session comes back on demand and keeps counting seq", async () => {
	const { runtime, handles } = setup(2);
	await runtime.start({ kind: "new" });
	const a = await runtime.create();
	handles[1]!.emit({ type: "agent_start" });
	handles[1]!.emit({ type: "agent_end" });
	assert.equal(a.hub.seq, 2);
	await runtime.create(); // evicts a
	assert.equal(runtime.peek(a.id), undefined);
	assert.equal(a.hub.seq, 3, "a session_unloaded event was published");
	const again = await runtime.get(a.id);
	assert.equal(again.id, a.id);
	assert.equal(again.hub, a.hub);
	handles.at(-1)!.emit({ type: "agent_start" });
	assert.equal(again.hub.seq, 4);
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
	await assert.rejects(runtime.close(a.id), /not loaded/);
	const reopened = await runtime.open(a.id);
	assert.equal(reopened.id, a.id);
	await runtime.shutdown();
	assert.ok(handles.every((h) => h.disposed));
});
