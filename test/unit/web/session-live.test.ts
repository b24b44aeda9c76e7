/**
 * The session list's live state reads the run facts the tab's news reads (run-watch.ts), with its own meaning:
 * a resumed goal clears its flag (the news stays until seen), an interrupted job flags its parent (no news), a
 * job's session is running or failed from its parent's job_updated; and a goal already paused when the page
 * looks (goal_get) is flagged as one paused since.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionSummary, SkiffClient, SkiffEvent } from "../../../src/client/index.js";
import type { PanelContext } from "../../../web/src/state/panel-context.js";
import { RunWatch } from "../../../web/src/state/run-watch.js";
import { SessionLive } from "../../../web/src/state/session-live.js";
import { until } from "../../support/until.js";

function live(answers: Record<string, (sessionId: string) => unknown> = {}) {
	let listener: ((event: SkiffEvent) => void) | undefined;
	const asked: string[] = [];
	const client = {
		onEvent: (l: (event: SkiffEvent) => void) => (listener = l),
		onStatus: () => undefined,
		call: async (type: string, _params: unknown, { sessionId }: { sessionId: string }) => {
			asked.push(`${type} ${sessionId}`);
			return answers[type]!(sessionId);
		},
	} as unknown as SkiffClient;
	const context: PanelContext = { client, sessionId: () => "shown", changed: () => undefined, toast: () => undefined, announce: () => undefined };
	const runs = new RunWatch(context);
	const sessions = new SessionLive(context, runs);
	const emit = (sessionId: string, event: Record<string, unknown>) => listener!({ sessionId, seq: 1, ...event } as unknown as SkiffEvent);
	return { runs, sessions, emit, asked };
}

const paused = { type: "goal_updated", operation: "paused", state: { goal: { pauseReason: "manual" }, revision: 2, actions: [] } };

test("a run is running until it ends; a failed reply, a paused goal, a failed or interrupted job need attention", () => {
	const { runs, sessions, emit } = live();
	emit("a", { type: "agent_start" });
	assert.deepEqual(sessions.get("a"), { state: "running" });
	emit("a", { type: "agent_end", messages: [] });
	assert.equal(sessions.get("a"), undefined);
	emit("a", paused);
	assert.deepEqual(sessions.get("a"), { state: "attention", why: "its goal is paused" });
	emit("a", { type: "goal_updated", operation: "resumed", state: { revision: 3, actions: [] } });
	assert.equal(sessions.get("a"), undefined, "a resumed goal clears the flag");
	assert.equal(runs.mark("a")?.mark, "attention", "the tab's news stays until seen");

	emit("b", { type: "job_updated", job: { id: "j", agent: "reviewer", status: "running", sessionId: "child" } });
	assert.deepEqual(sessions.get("child"), { state: "running" });
	emit("b", { type: "job_updated", job: { id: "j", agent: "reviewer", status: "interrupted", sessionId: "child" } });
	assert.deepEqual(sessions.get("child"), { state: "attention", why: "it failed" });
	assert.deepEqual(sessions.get("b"), { state: "attention", why: "a job failed" });
	assert.equal(runs.mark("b"), undefined, "an interrupted job is no news for the tab");

	emit("shown", { type: "message_end", message: { role: "assistant", content: [], stopReason: "error" } });
	assert.equal(sessions.get("shown"), undefined, "what happens in the session shown is in view");
	emit("c", { type: "agent_start" });
	emit("c", { type: "session_unloaded", reason: "evicted" });
	assert.equal(sessions.get("c"), undefined);
});

test("a loaded session's state is asked once: a goal paused before the page looked needs attention, a run in progress runs", async () => {
	const row = (sessionId: string, kind = "user") => ({ sessionId, kind, loaded: true }) as SessionSummary;
	const { sessions, asked } = live({
		get_state: (id) => ({ isStreaming: id === "busy" }),
		goal_get: (id) => (id === "idle" ? { goal: { lifecycle: "paused", pauseReason: "resume_safety" }, revision: 1, actions: [] } : { revision: 0, actions: [] }),
	});
	sessions.watch([row("idle"), row("busy"), row("job", "job"), { ...row("away"), loaded: false }]);
	sessions.watch([row("idle")]);
	await until(() => asked.length === 5 && sessions.get("busy") !== undefined, () => `the answers (asked: ${asked.join(", ")})`);
	assert.deepEqual(sessions.get("idle"), { state: "attention", why: "its goal is paused" });
	assert.deepEqual(sessions.get("busy"), { state: "running" });
	assert.deepEqual(asked.sort(), ["get_state busy", "get_state idle", "get_state job", "goal_get busy", "goal_get idle"], "once each; a job's session has no goal; an unloaded one is not followed");
});

test("a session not loaded whose file's goal is paused needs attention, once per page: not again once shown", () => {
	const row = (sessionId: string, goal?: SessionSummary["goal"]) => ({ sessionId, kind: "user", loaded: false, goal }) as SessionSummary;
	const { sessions, asked } = live();
	sessions.watch([row("paused", { lifecycle: "paused", pauseReason: "budget_exhausted" }), row("active", { lifecycle: "active" }), row("none"), row("shown", { lifecycle: "paused", pauseReason: "manual" })]);
	assert.deepEqual(sessions.get("paused"), { state: "attention", why: "its goal is paused" });
	assert.equal(sessions.get("active"), undefined);
	assert.equal(sessions.get("none"), undefined);
	assert.equal(sessions.get("shown"), undefined, "what happens in the session shown is in view");
	assert.deepEqual(asked, [], "nothing asked of a session not loaded");
	sessions.watch([row("shown", { lifecycle: "paused", pauseReason: "manual" })]);
	assert.equal(sessions.get("shown"), undefined, "the list read again does not flag it again");
});
