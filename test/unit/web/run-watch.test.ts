/**
 * The page's news of followed sessions (the tab's title, notifications): from pushed events alone, for every
 * session; a failure or a pause is not hidden by the end of the run; a failed job is told once per session; a new
 * run or the user's look clears it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SkiffClient, SkiffEvent } from "../../../src/client/index.js";
import type { PanelContext } from "../../../web/src/state/panel-context.js";
import { type RunNews, RunWatch } from "../../../web/src/state/run-watch.js";

function watch() {
	let listener: ((event: SkiffEvent) => void) | undefined;
	const client = { onEvent: (l: (event: SkiffEvent) => void) => (listener = l) } as unknown as SkiffClient;
	const context: PanelContext = { client, sessionId: () => "a", changed: () => undefined, toast: () => undefined, announce: () => undefined };
	const runs = new RunWatch(context);
	const heard: Array<RunNews | undefined> = [];
	runs.onChange((news) => heard.push(news));
	const emit = (sessionId: string, event: Record<string, unknown>) => listener!({ sessionId, seq: 1, ...event } as unknown as SkiffEvent);
	return { runs, heard, emit };
}

const failedReply = { type: "message_end", message: { role: "assistant", content: [], stopReason: "error", errorMessage: "the model refused" } };

test("a run that ends is done; one whose reply failed needs attention, and says why", () => {
	const { runs, heard, emit } = watch();
	emit("a", { type: "agent_start" });
	emit("a", { type: "agent_end", messages: [] });
	assert.deepEqual(runs.mark("a"), { sessionId: "a", mark: "done", what: "The run is done." });
	emit("b", { type: "agent_start" });
	emit("b", failedReply);
	emit("b", { type: "agent_end", messages: [] });
	assert.deepEqual(runs.mark("b"), { sessionId: "b", mark: "attention", what: "The run failed: the model refused" });
	assert.equal(runs.other("a")?.sessionId, "b", "another session's news");
	assert.deepEqual(
		heard.filter(Boolean).map((n) => n!.sessionId),
		["a", "b"],
	);
	// A new run clears the news; the user's look too.
	emit("b", { type: "agent_start" });
	assert.equal(runs.mark("b"), undefined);
	runs.seen("a");
	assert.equal(runs.mark("a"), undefined);
	assert.equal(runs.other(undefined), undefined);
});

test("a paused goal needs attention, and the end of its run does not hide it", () => {
	const { runs, emit } = watch();
	emit("a", { type: "agent_start" });
	emit("a", { type: "goal_updated", operation: "paused", state: { goal: { pauseReason: "budget_exhausted" }, revision: 3, actions: [] } });
	emit("a", { type: "agent_end", messages: [] });
	assert.deepEqual(runs.mark("a"), { sessionId: "a", mark: "attention", what: "The goal paused: its token budget is spent." });
	// Other goal changes are not news.
	emit("b", { type: "goal_updated", operation: "pinned", state: { revision: 1, actions: [] } });
	assert.equal(runs.mark("b"), undefined);
});

test("a failed job is told once per session that follows it; other job changes are not news", () => {
	const { runs, heard, emit } = watch();
	const job = (status: string) => ({ type: "job_updated", job: { id: "j1", agent: "reviewer", status, error: "timed out" } });
	emit("a", job("running"));
	assert.equal(runs.mark("a"), undefined);
	emit("a", job("failed"));
	emit("a", job("failed"));
	emit("root", job("failed"));
	assert.deepEqual(runs.mark("a"), { sessionId: "a", mark: "attention", what: "A job failed (reviewer): timed out" });
	assert.equal(heard.filter(Boolean).length, 2, "once for a, once for root");
});
