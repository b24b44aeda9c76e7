/**
 * `changes_updated` from the changes service: one event a moment after a burst of file-writing tool calls,
 * none for tools that only read, at least one every 2 s while a burst goes on, and none for a session
 * unloaded meanwhile.
 */
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { test } from "node:test";
import type { RuntimeEvent, SessionObserver } from "../../../src/agent/types.js";
import { CHANGES_UPDATED_DEBOUNCE_MS, CHANGES_UPDATED_MAX_WAIT_MS, ChangesService } from "../../../src/features/changes/service.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function harness() {
	let observer: SessionObserver | undefined;
	const published: Array<{ sessionId: string; event: RuntimeEvent; at: number }> = [];
	const service = new ChangesService({
		agentDir: tmpdir(),
		observe: (o) => {
			observer = o;
			return () => (observer = undefined);
		},
		publish: (sessionId, event) => published.push({ sessionId, event, at: Date.now() }),
	});
	const tool = (sessionId: string, toolName: string) => observer!(sessionId, { kind: "event", event: { type: "tool_execution_end", toolName } });
	return { service, published, tool, unload: (sessionId: string) => observer!(sessionId, { kind: "unloaded", reason: "closed" }) };
}

test("a burst makes one event after its last call; reading tools make none", async () => {
	const { service, published, tool } = harness();
	tool("s1", "read");
	tool("s1", "grep");
	await sleep(CHANGES_UPDATED_DEBOUNCE_MS + 100);
	assert.equal(published.length, 0);
	tool("s1", "edit");
	await sleep(50);
	tool("s1", "bash");
	tool("s2", "write");
	await sleep(CHANGES_UPDATED_DEBOUNCE_MS + 150);
	assert.deepEqual(published.map((p) => [p.sessionId, p.event.type]).sort(), [["s1", "changes_updated"], ["s2", "changes_updated"]]);
	service.stop();
});

test("a burst that goes on is announced at least every 2 s; an unloaded session's pending event is dropped", async () => {
	const { service, published, tool, unload } = harness();
	const start = Date.now();
	while (Date.now() - start < CHANGES_UPDATED_MAX_WAIT_MS + 500) {
		tool("s1", "bash");
		await sleep(100);
	}
	assert.ok(published.length >= 1, "announced while the calls went on");
	assert.ok(published[0]!.at - start <= CHANGES_UPDATED_MAX_WAIT_MS + 200, `${published[0]!.at - start} ms`);
	published.length = 0;
	tool("s1", "edit");
	unload("s1");
	await sleep(CHANGES_UPDATED_DEBOUNCE_MS + 100);
	assert.equal(published.length, 0);
	service.stop();
});
