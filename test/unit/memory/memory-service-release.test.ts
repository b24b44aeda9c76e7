/**
 * A closed session's memory entry: the service keeps what loading it again needs (its own configuration, its
 * working directory, its store) but no longer the loaded session's features, whose closures hold the whole
 * agent session (issue 21: each closed session used to stay in memory through this map).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryService } from "../../../src/features/memory/memory-service.js";
import { personaStorePath } from "../../../src/features/memory/local-store.js";
import { DEFAULT_MEMORY_SETTINGS } from "../../../src/features/memory/settings.js";
import { FakeFeatureSession } from "../../support/fake-feature-session.js";

function open(memory: MemoryService, id: string, options: { cwd: string; parentSessionId?: string; personaRoot?: string }) {
	let cwd: string | undefined = options.cwd;
	const features = memory.forSession({ cwd: () => cwd ?? "/gone", sessionId: () => id, parentSessionId: options.parentSessionId, personaRoot: options.personaRoot });
	memory.attach(id, features);
	const session = new FakeFeatureSession(id);
	features.bind(session);
	return {
		features,
		close() {
			session.close();
			cwd = undefined; // the handle is gone: nothing may read the loaded session after its close
		},
	};
}

test("a closed session's memory entry no longer refers to the loaded session, and keeps its configuration and store", () => {
	const memory = new MemoryService("/agent", { ...DEFAULT_MEMORY_SETTINGS });
	const parent = open(memory, "parent", { cwd: "/work/a" });
	const child = open(memory, "child", { cwd: "/work/a", parentSessionId: "parent" });
	const persona = open(memory, "persona", { cwd: "/work/b", personaRoot: "/personas/p" });
	assert.equal(memory.liveSessionCount, 3);
	const childBinding = memory.binding("child");
	const storeBefore = memory.localStore("child", "/elsewhere");

	parent.close();
	child.close();
	persona.close();
	assert.equal(memory.liveSessionCount, 0);
	assert.equal(memory.binding("child"), childBinding, "the child keeps its own configuration");
	assert.deepEqual(memory.localStore("child", "/elsewhere"), { namespace: storeBefore.namespace, store: storeBefore.store });
	assert.equal(memory.localStore("persona", "/elsewhere").store.path, personaStorePath("/personas/p"));
	assert.equal(memory.localStore("persona", "/elsewhere").namespace, "persona");
	assert.equal(memory.localStore("parent", "/elsewhere").store.path, memory.localStore("unknown", "/work/a").store.path);
});

test("a session reloaded under the same id keeps its new entry when the replaced one closes after it", () => {
	const memory = new MemoryService("/agent", { ...DEFAULT_MEMORY_SETTINGS });
	const first = open(memory, "s", { cwd: "/work/a" });
	const second = open(memory, "s", { cwd: "/work/a" });
	first.close();
	assert.equal(memory.liveSessionCount, 1, "the reloaded session is still live");
	second.close();
	assert.equal(memory.liveSessionCount, 0);
});

test("a child opened again without its parent (after unloading) keeps its own configuration, and applied files reach it", () => {
	const memory = new MemoryService("/agent", { ...DEFAULT_MEMORY_SETTINGS });
	open(memory, "parent", { cwd: "/work/a" });
	const child = open(memory, "child", { cwd: "/work/a", parentSessionId: "parent" });
	memory.setBackend(memory.binding("child"), "off"); // the child's own run-time switch
	child.close();
	const again = open(memory, "child", { cwd: "/work/a" }); // loaded again: no parent is named
	assert.equal(again.features.activeToolNames().length, 0, "still off");
	assert.equal(memory.binding("parent").settings.backend, "local");

	memory.reload({ ...DEFAULT_MEMORY_SETTINGS, backend: "off" }); // the files now say off: every configuration takes it
	assert.equal(memory.binding("parent").settings.backend, "off");
	memory.setBackend(memory.binding("child"), "local");
	memory.reload({ ...DEFAULT_MEMORY_SETTINGS, backend: "off", remoteInjection: !DEFAULT_MEMORY_SETTINGS.remoteInjection });
	assert.equal(memory.binding("child").settings.backend, "local", "a change of another key leaves the run-time switch");
	assert.equal(memory.binding("child").settings.remoteInjection, !DEFAULT_MEMORY_SETTINGS.remoteInjection);
});
