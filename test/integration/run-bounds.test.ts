/**
 * Runs that stop (issue 20, item 13), against the real service and a fake model that calls a tool in every
 * reply (LOOP_CALL): a goal whose token budget is spent stops the run working toward it; every run (a side
 * chat's too) stops at `session.maxTurnsPerRun` turns, which validates its range and applies live; a job's
 * child stops at its own turn limit, or at the per-run one, and the job fails saying which. Each stop is a
 * `run_stopped` event just before `agent_end`, the run's last reply is recorded as aborted, and the session
 * takes the next prompt.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi } from "../support/fake-openai.js";
import { fakeModelHome } from "../support/fake-model-home.js";
import type { SkiffProcess } from "../support/skiff-process.js";
import { type Event, TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
let skiff: SkiffProcess;

before(async () => {
	model = await startFakeOpenAi();
	const home = fakeModelHome(model.url);
	mkdirSync(join(home.agentDir, "agents"));
	writeFileSync(join(home.agentDir, "agents", "looper.md"), "---\nname: looper\ndescription: Never stops on its own\nmaxTurns: 2\n---\nYou loop.\n");
	skiff = await home.start();
});

after(async () => {
	await skiff?.stop();
	await model?.close();
});

/** A script that calls `ls` in every reply, marked so that its requests can be counted. */
const loop = (mark: string) => `${mark}\nLOOP_CALL ls {"path": "."}`;

/** The model requests of the conversation whose first user message holds `mark` (not a parent told of a job). */
function requestsFor(mark: string): number {
	return model.requests.filter((r) => JSON.stringify(r.body.messages.find((m: any) => m.role === "user")?.content ?? "").includes(mark)).length;
}

/** Waits for the end of the session's next run (from event `from`) and returns its events. */
async function runEnd(client: TestClient, sessionId: string, from: number): Promise<Event[]> {
	await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 60_000, from);
	return client.events.slice(from).filter((e) => e.sessionId === sessionId);
}

/** The stop is the last word before the run's end, and the run's last reply is recorded as aborted. */
async function assertStopped(client: TestClient, sessionId: string, events: Event[]): Promise<Event> {
	const types = events.map((e) => e.type);
	const stop = events.find((e) => e.type === "run_stopped");
	assert.ok(stop, `a run_stopped event (got ${[...new Set(types)].join(", ")})`);
	assert.equal(types.filter((t) => t === "run_stopped").length, 1);
	assert.equal(types.indexOf("run_stopped"), types.indexOf("agent_end") - 1, "right before agent_end");
	const { messages } = await client.ok({ type: "get_messages", sessionId });
	assert.equal(messages.filter((m: any) => m.role === "assistant").at(-1).stopReason, "aborted");
	return stop;
}

async function setTurnLimit(client: TestClient, value: unknown): Promise<{ success: boolean; code?: string; error?: string }> {
	const { draftId } = await client.ok({ type: "settings_open_draft", scope: "global" });
	const set = await client.request({ type: "settings_set", draftId, key: "session.maxTurnsPerRun", value });
	if (!set.success) {
		await client.ok({ type: "settings_cancel", draftId });
		return set;
	}
	await client.ok({ type: "settings_apply", draftId });
	return set;
}

test("a goal whose token budget is spent stops the run working toward it, within a turn", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	const from = client.events.length;
	const created = await client.ok({ type: "goal_create", sessionId, objective: loop("GOAL-LOOP"), tokenBudget: 100, activate: true });
	assert.equal(created.continuation, "started");
	const events = await runEnd(client, sessionId, from);
	const pause = events.find((e) => e.type === "goal_updated" && e.operation === "paused")!;
	assert.deepEqual([pause.state.goal.lifecycle, pause.state.goal.pauseReason], ["paused", "budget_exhausted"]);
	const stop = await assertStopped(client, sessionId, events);
	assert.equal(stop.reason, "goal_inactive");
	assert.match(stop.message, /token budget is spent/);
	// The first reply alone costs more than 100 tokens; the stop may let the turn under way when the goal
	// paused finish, never another.
	const requests = requestsFor("GOAL-LOOP");
	assert.ok(requests >= 1 && requests <= 2, `${requests} model requests`);
	assert.ok(stop.turns <= 2);

	// Paused, the goal starts nothing; the session takes the next prompt as usual.
	const next = await client.turn(sessionId, "REPLY still here");
	assert.ok(!next.some((e) => e.type === "run_stopped"));
	assert.equal(requestsFor("GOAL-LOOP"), requests + 1);
	client.close();
});

test("pausing the goal from the control plane stops the run working toward it", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	const from = client.events.length;
	await client.ok({ type: "goal_create", sessionId, objective: loop("PAUSED-LOOP"), activate: true });
	// Paused once the loop is under way.
	await client.waitForEvent((e) => e.type === "tool_execution_end" && e.sessionId === sessionId, 20_000, from);
	await client.ok({ type: "goal_pause", sessionId });
	const stop = await assertStopped(client, sessionId, await runEnd(client, sessionId, from));
	assert.equal(stop.reason, "goal_inactive");
	assert.match(stop.message, /paused/);
	client.close();
});

test("session.maxTurnsPerRun takes only whole numbers from 1 to 10000", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	await client.newSession();
	for (const value of [0, 10_001, 2.5, "3", null]) {
		const refused = await setTurnLimit(client, value);
		assert.equal(refused.code, "invalid_command", String(value));
		assert.match(refused.error!, /`session.maxTurnsPerRun` must be an integer from 1 to 10000/, String(value));
	}
	const { values } = await client.ok({ type: "settings_inspect" });
	const setting = values.find((v: any) => v.key === "session.maxTurnsPerRun");
	assert.deepEqual([setting.effectiveValue, setting.default, setting.minimum, setting.maximum, setting.source, setting.applies], [500, 500, 1, 10_000, "default", "live"]);
	client.close();
});

test("a run whose model calls a tool forever stops at session.maxTurnsPerRun, applied live, and the session goes on", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const loaded = await client.newSession();
	(await setTurnLimit(client, 3)).success || assert.fail("the limit applies");
	try {
		for (const [sessionId, mark] of [
			[loaded, "LOADED-LOOP"],
			[await client.newSession(), "NEW-LOOP"],
		] as const) {
			const from = client.events.length;
			await client.ok({ type: "prompt", sessionId, message: loop(mark) });
			const stop = await assertStopped(client, sessionId, await runEnd(client, sessionId, from));
			assert.deepEqual([stop.reason, stop.turns, stop.limit], ["turn_limit", 3, 3]);
			assert.match(stop.message, /3 turns.*session\.maxTurnsPerRun/);
			assert.equal(requestsFor(mark), 3, "no model call after the limit");
			const next = await client.turn(sessionId, "REPLY carrying on");
			assert.ok(!next.some((e) => e.type === "run_stopped"));
			assert.equal(next.filter((e) => e.type === "turn_end").length, 1);
		}

		// A side chat's run, forked from a conversation, is bounded the same way and says so in its tab's events.
		const sessionId = await client.newSession();
		await client.turn(sessionId, "SIDE-BASE\nREPLY ready");
		await client.ok({ type: "side_chat_new", sessionId, name: "side" });
		const from = client.events.length;
		await client.ok({ type: "side_chat_prompt", sessionId, name: "side", message: loop("SIDE-LOOP") });
		const ended = (e: Event) => e.type === "side_chat_event" && e.sessionId === sessionId && e.event.type === "agent_end";
		await client.waitForEvent(ended, 60_000, from);
		const tab = client.events.slice(from).filter((e) => e.type === "side_chat_event" && e.sessionId === sessionId).map((e) => e.event);
		const stop = tab.find((e) => e.type === "run_stopped");
		assert.deepEqual([stop?.reason, stop?.turns, tab.at(-2)?.type], ["turn_limit", 3, "run_stopped"]);
		assert.equal(requestsFor("SIDE-BASE"), 1 + 3, "the main turn, then three of the side chat's");
	} finally {
		await setTurnLimit(client, 500);
	}
	client.close();
});

test("a job's child stops at its agent's own turn limit, or at the per-run one, and the job fails saying which", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	const finished = async (jobId: string, from: number) =>
		(await client.waitForEvent((e) => e.type === "job_updated" && e.job.id === jobId && ["completed", "failed", "cancelled"].includes(e.job.status), 60_000, from)).job;

	let from = client.events.length;
	const own = (await client.ok({ type: "task_spawn", sessionId, agent: "looper", task: loop("LOOPER-JOB") })).jobs[0];
	const ownEnd = await finished(own.id, from);
	assert.equal(ownEnd.status, "failed");
	assert.match(ownEnd.error, /limit of 2 turns/);
	assert.equal(requestsFor("LOOPER-JOB"), 2, "no model call after the agent's limit");

	(await setTurnLimit(client, 3)).success || assert.fail("the limit applies");
	try {
		from = client.events.length;
		const plain = (await client.ok({ type: "task_spawn", sessionId, task: loop("TASK-JOB") })).jobs[0];
		const plainEnd = await finished(plain.id, from);
		assert.equal(plainEnd.status, "failed");
		assert.match(plainEnd.error, /3 turns.*session\.maxTurnsPerRun/);
		assert.equal(requestsFor("TASK-JOB"), 3);
	} finally {
		await setTurnLimit(client, 500);
	}
	client.close();
});
