/** Which sessions the lists show (web/src/state/session-rows.ts): nesting of internal sessions, unused empty ones left out. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionSummary } from "../../../src/client/index.js";
import { sessionNodes } from "../../../web/src/state/session-rows.js";

let clock = Date.parse("2026-01-01T00:00:00Z");
function row(sessionId: string, fields: Partial<SessionSummary> = {}): SessionSummary {
	const at = new Date((clock += 60_000)).toISOString();
	return { sessionId, path: `/s/${sessionId}.jsonl`, cwd: "/p", created: at, modified: at, messageCount: 2, firstMessage: sessionId, kind: "user", loaded: false, primary: false, recorded: true, ...fields };
}

const shape = (rows: SessionSummary[], current?: string) => sessionNodes(rows, current).map((n) => [n.row.sessionId, n.children.map((c) => c.sessionId)]);

test("a job's and a workflow's sessions go under the user's session they work for, through internal parents too", () => {
	const rows = [
		row("parent"),
		row("job", { kind: "job", parentSessionId: "parent" }),
		row("supervisor", { kind: "workflow", parentSessionId: "parent" }),
		row("worker-job", { kind: "job", parentSessionId: "supervisor" }),
		row("other"),
	];
	assert.deepEqual(shape(rows), [
		["other", []],
		["parent", ["worker-job", "supervisor", "job"]],
	]);
});

test("an internal session whose parent is not listed is left out, and a parent loop ends", () => {
	const rows = [row("a", { kind: "job", parentSessionId: "gone" }), row("b", { kind: "job", parentSessionId: "c" }), row("c", { kind: "job", parentSessionId: "b" })];
	assert.deepEqual(shape(rows), []);
});

test("an empty session with nothing on disk is listed only while shown; a fork made at its first message stays", () => {
	const rows = [
		row("kept"),
		row("fresh", { recorded: false, messageCount: 0, firstMessage: "", loaded: true, primary: true }),
		row("fork", { recorded: false, messageCount: 0, firstMessage: "", loaded: true, parentSession: "/s/kept.jsonl", kind: "fork" }),
		row("named", { recorded: false, messageCount: 0, name: "Plans" }),
	];
	assert.deepEqual(shape(rows, "kept").map(([id]) => id), ["named", "fork", "kept"]);
	assert.deepEqual(shape(rows, "fresh").map(([id]) => id), ["named", "fork", "fresh", "kept"]);
});
