/**
 * The goal of one session against an in-memory session (no pi): what is recorded and announced, the hidden
 * context and the tool while active, exactly one continuation turn on activation, usage charged after each
 * turn and the budget pausing the goal, a reopened session pausing an active goal, tree navigation restoring
 * the goal of the branch, a damaged journal making the goal inert, and refusals that record nothing.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { GOAL_CONTEXT_TYPE, GOAL_CONTINUE_TYPE } from "../../../src/features/goal/context.js";
import { GOAL_ENTRY_TYPE, GoalSession } from "../../../src/features/goal/session.js";
import type { GoalView } from "../../../src/features/goal/schemas.js";
import type { CodedError } from "../../../src/shared/errors.js";
import { preciseNow } from "../../../src/shared/precise-clock.js";
import { FakeFeatureSession } from "../../support/fake-feature-session.js";

let ids = 0;

function open(session = new FakeFeatureSession(), reopened = false): { goal: GoalSession; session: FakeFeatureSession } {
	const goal = new GoalSession(() => `goal-g${++ids}`);
	goal.bind(session, { reopened });
	goal.attached();
	return { goal, session };
}

/** The journal's change kinds as recorded on the active branch. */
function recorded(session: FakeFeatureSession): string[] {
	return session.customEntries(GOAL_ENTRY_TYPE).map((e) => (e.data as { event: { change: { kind: string } } }).event.change.kind);
}

function operations(session: FakeFeatureSession): string[] {
	return session.sent("goal_updated").map((e) => e.operation as string);
}

/** Runs `action`, expects a refusal with this code, and checks that nothing was recorded or announced. */
async function refusedUnchanged(goal: GoalSession, session: FakeFeatureSession, code: string, action: () => unknown): Promise<CodedError> {
	const entries = session.entries.size;
	const events = session.events.length;
	const turns = session.hiddenTurns.length;
	const before = JSON.stringify(goal.view());
	let failure: CodedError | undefined;
	try {
		await action();
	} catch (error) {
		failure = error as CodedError;
	}
	assert.ok(failure, "refused");
	assert.equal(failure.code, code, failure.message);
	assert.equal(session.entries.size, entries, "nothing recorded");
	assert.equal(session.events.length, events, "nothing announced");
	assert.equal(session.hiddenTurns.length, turns, "no turn started");
	assert.equal(JSON.stringify(goal.view()), before, "the goal is as it was");
	return failure;
}

test("each change is one journal entry and one goal_updated; the tool and the hidden context only while active", async () => {
	const { goal, session } = open();
	assert.deepEqual(goal.activeToolNames(), []);
	assert.equal(await goal.contextForPrompt(), undefined);
	const created = await goal.create({ objective: "Ship it", tokenBudget: 500 });
	assert.equal(created.continuation, undefined, "no turn without activate");
	assert.equal(session.hiddenTurns.length, 0);
	goal.pin("keep it small");
	assert.deepEqual(goal.activeToolNames(), ["goal"]);
	const context = await goal.contextForPrompt();
	assert.equal(context?.customType, GOAL_CONTEXT_TYPE);
	assert.match(context!.content, /The session has an active goal, set by the user:\nShip it\n/);
	assert.match(context!.content, /Token budget: 0 of 500 tokens used\./);
	assert.match(context!.content, /- keep it small/);
	goal.pause();
	assert.deepEqual(goal.activeToolNames(), []);
	assert.equal(await goal.contextForPrompt(), undefined, "no hidden context while paused");
	await goal.resume();
	goal.unpin(0);
	goal.drop();
	assert.deepEqual(recorded(session), ["created", "pinned", "paused", "resumed", "unpinned", "dropped"]);
	assert.deepEqual(operations(session), ["created", "pinned", "paused", "resumed", "unpinned", "dropped"]);
	const last = session.sent("goal_updated").at(-1)!.state as GoalView;
	assert.deepEqual([last.goal!.lifecycle, last.revision, last.actions], ["dropped", 6, ["create"]]);
	assert.deepEqual(goal.journal(2).events.map((e) => e.change.kind), ["unpinned", "dropped"], "the newest events");
	assert.equal(goal.journal(2).total, 6);
});

test("activation starts exactly one hidden continuation turn, queued behind an active run", async () => {
	const { goal, session } = open();
	const created = await goal.create({ objective: "Fix the build", activate: true });
	assert.equal(created.continuation, "started");
	assert.equal(session.hiddenTurns.length, 1);
	assert.equal(session.hiddenTurns[0]!.customType, GOAL_CONTINUE_TYPE);
	assert.match(session.hiddenTurns[0]!.content, /Fix the build[\s\S]*Start concrete work toward the active session goal now\.$/);
	goal.pause();
	session.running = true;
	const resumed = await goal.resume({ activate: true });
	assert.equal(resumed.continuation, "queued");
	await goal.resume().catch(() => undefined); // refused: already active
	assert.equal(session.hiddenTurns.length, 2, "one per activation, none for a refused resume");
	goal.pause();
	await goal.resume();
	assert.equal(session.hiddenTurns.length, 2, "resuming without activate starts nothing");
});

test("without a model an activation, and while the session moves in its tree any change, is refused and records nothing", async () => {
	const { goal, session } = open();
	session.noModel = true;
	await refusedUnchanged(goal, session, "unavailable", () => goal.create({ objective: "x", activate: true }));
	session.noModel = false;
	session.moving = true;
	await refusedUnchanged(goal, session, "busy", () => goal.create({ objective: "x" }));
	session.moving = false;
	await goal.create({ objective: "x" });
	goal.pause();
	session.noModel = true;
	await refusedUnchanged(goal, session, "unavailable", () => goal.resume({ activate: true }));
	session.noModel = false;
	session.moving = true;
	for (const action of [() => goal.resume(), () => goal.complete(), () => goal.drop(), () => goal.pin("p")]) {
		await refusedUnchanged(goal, session, "busy", action);
	}
});

test("every bad input is refused with what was wrong, and records nothing", async () => {
	const { goal, session } = open();
	for (const action of [() => goal.pause(), () => goal.resume(), () => goal.complete(), () => goal.drop(), () => goal.pin("x"), () => goal.unpin(0)]) {
		const error = await refusedUnchanged(goal, session, "conflict", action);
		assert.match(error.message, /There is no goal/);
	}
	assert.match((await refusedUnchanged(goal, session, "limit", () => goal.create({ objective: "x".repeat(64 * 1024 + 1) }))).message, /65537 bytes: at most 65536/);
	await refusedUnchanged(goal, session, "invalid_command", () => goal.create({ objective: "   " }));
	await refusedUnchanged(goal, session, "invalid_command", () => goal.create({ objective: "x", tokenBudget: 0 }));
	await goal.create({ objective: "x" });
	await refusedUnchanged(goal, session, "conflict", () => goal.create({ objective: "y" }));
	await refusedUnchanged(goal, session, "conflict", () => goal.resume());
	for (let i = 0; i < 8; i++) goal.pin(`pin ${i}`);
	assert.match((await refusedUnchanged(goal, session, "limit", () => goal.pin("ninth"))).message, /at most 8 pins/);
	goal.unpin(7);
	assert.match((await refusedUnchanged(goal, session, "limit", () => goal.pin("y".repeat(201)))).message, /at most 200 characters \(this one has 201\)/);
	assert.match((await refusedUnchanged(goal, session, "not_found", () => goal.unpin(7))).message, /No pin at index 7 \(the goal has 7 pins/);
	goal.complete();
	for (const action of [() => goal.pause(), () => goal.resume(), () => goal.complete(), () => goal.drop(), () => goal.pin("x"), () => goal.unpin(0)]) {
		assert.match((await refusedUnchanged(goal, session, "conflict", action)).message, /it is completed/);
	}
});

test("usage is charged after each turn while active; a spent budget pauses the goal; a paused goal is not charged", async () => {
	const { goal, session } = open();
	await goal.create({ objective: "Refactor", tokenBudget: 100 });
	session.endTurn(60, 7);
	assert.deepEqual(goal.state.goal!.usage, { tokens: 60, wallTimeMs: 7 });
	const charge = session.sent("goal_usage")[0]!;
	assert.deepEqual([charge.delta, charge.usage, charge.tokenBudget], [{ tokens: 60, wallTimeMs: 7 }, { tokens: 60, wallTimeMs: 7 }, 100]);
	session.endTurn(45, 3);
	assert.deepEqual([goal.state.goal!.lifecycle, goal.state.goal!.pauseReason, goal.state.goal!.usage.tokens], ["paused", "budget_exhausted", 105]);
	assert.deepEqual(recorded(session), ["created", "usage", "usage", "paused"], "charged, then paused");
	session.endTurn(1000, 5, preciseNow() + 1);
	assert.equal(goal.state.goal!.usage.tokens, 105, "a turn that began after the pause is not charged");
	await assert.rejects(goal.resume(), /budget is spent \(105 of 100 tokens\)/);
	await goal.resume({ tokenBudget: 1000 });
	assert.equal(goal.state.goal!.lifecycle, "active");
});

test("the run under way stops when the goal stops being active by its budget or a command, not when the agent pauses or completes it", async () => {
	const { goal, session } = open();
	session.running = true;
	await goal.create({ objective: "Loop", tokenBudget: 100 });
	session.endTurn(60, 1);
	assert.equal(session.stops.length, 0, "within its budget the run goes on");
	session.endTurn(45, 1);
	assert.deepEqual(session.stops.map((s) => s.reason), ["goal_inactive"]);
	assert.match(session.stops[0]!.message, /token budget is spent \(105 of 100 tokens used\)/);

	for (const [action, pattern] of [
		[() => goal.pause(), /was paused/],
		[() => goal.complete(), /marked completed/],
		[() => goal.drop(), /dropped/],
	] as const) {
		session.stops.length = 0;
		if (goal.state.goal!.lifecycle === "paused") await goal.resume({ tokenBudget: 100_000 });
		else await goal.create({ objective: "Again" });
		action();
		assert.equal(session.stops.length, 1, String(pattern));
		assert.match(session.stops[0]!.message, pattern);
	}

	session.stops.length = 0;
	await goal.create({ objective: "The agent's own" });
	const tool = goal.tools[0]!;
	await tool.execute({ op: "pause" }, undefined);
	await goal.resume();
	await tool.execute({ op: "complete" }, undefined);
	assert.equal(session.stops.length, 0, "the agent ends its run itself");
	await goal.create({ objective: "Pins" });
	goal.pin("a note");
	assert.equal(session.stops.length, 0, "a change that keeps it active stops nothing");
});

test("the turn in which the goal stopped being active is still charged to it, later turns are not", async () => {
	const { goal, session } = open();
	await goal.create({ objective: "Complete me" });
	const turnStarted = preciseNow() - 50;
	goal.complete(); // by the tool, during the turn
	session.endTurn(30, 50, turnStarted);
	assert.equal(goal.state.goal!.usage.tokens, 30);
	session.endTurn(30, 5, preciseNow() + 1);
	assert.equal(goal.state.goal!.usage.tokens, 30);
	assert.deepEqual(recorded(session), ["created", "completed", "usage"]);
});

test("a reopened session pauses an active goal (resume_safety), announced once followers are connected", async () => {
	const first = open();
	await first.goal.create({ objective: "Unattended?", tokenBudget: 1000 });
	first.session.endTurn(10, 1);
	// The same file opened again: the journal is on the branch.
	const { goal, session } = open(first.session, true);
	assert.deepEqual([goal.state.goal!.lifecycle, goal.state.goal!.pauseReason], ["paused", "resume_safety"]);
	assert.deepEqual(recorded(session).slice(-1), ["paused"], "recorded at once");
	assert.equal(goal.state.goal!.usage.tokens, 10, "usage kept");
	const sentBefore = session.sent("goal_updated").length;
	await Promise.resolve();
	assert.equal(session.sent("goal_updated").length, sentBefore + 1, "announced in a moment");
	assert.equal(await goal.contextForPrompt(), undefined);
	// Opened again while paused: nothing more; a fork or a new session (not reopened) keeps an active goal active.
	const again = open(session, true);
	assert.equal(recorded(again.session).length, recorded(session).length);
	const resumed = open(new FakeFeatureSession(), false);
	await resumed.goal.create({ objective: "Forked" });
	const fork = open(resumed.session, false);
	assert.equal(fork.goal.state.goal!.lifecycle, "active");
});

test("tree navigation restores the goal of the branch and says so only when it differs", async () => {
	const { goal, session } = open();
	const root = session.appendCustomEntry("message", {});
	await goal.create({ objective: "Branch goal" });
	const created = session.leafId;
	goal.pause();
	const paused = session.leafId;
	session.navigate(created);
	assert.equal(goal.state.goal!.lifecycle, "active");
	session.navigate(root);
	assert.equal(goal.view().goal, undefined);
	assert.deepEqual(goal.view().actions, ["create"]);
	session.navigate(root);
	session.navigate(paused);
	const restored = session.sent("goal_updated").filter((e) => e.operation === "restored").map((e) => (e.state as GoalView).goal?.lifecycle ?? "none");
	assert.deepEqual(restored, ["active", "none", "paused"], "one event per change of state, none for a move that changes nothing");
	// A change on an earlier point starts a branch there: the revision follows that branch's journal.
	session.navigate(created);
	goal.complete();
	assert.deepEqual(recorded(session), ["created", "completed"]);
	assert.equal(goal.state.revision, 2);
});

test("a damaged journal makes the goal inert: shown with where replay stopped, every change refused, nothing charged", async () => {
	const session = new FakeFeatureSession();
	const at = "2025-01-01T00:00:00.000Z";
	session.appendCustomEntry(GOAL_ENTRY_TYPE, { version: 1, event: { revision: 1, at, change: { kind: "created", id: "goal-x", objective: "x" } } });
	session.appendCustomEntry(GOAL_ENTRY_TYPE, { version: 1, event: { revision: 5, at, change: { kind: "completed" } } });
	const { goal } = open(session, true);
	const view = goal.view();
	assert.match(view.journalError!, /^entry e\d+ \(completed\): revision 5 does not follow 1/);
	assert.deepEqual([view.goal!.lifecycle, view.actions], ["active", []]);
	assert.deepEqual(goal.activeToolNames(), []);
	assert.equal(await goal.contextForPrompt(), undefined);
	assert.match((await refusedUnchanged(goal, session, "conflict", () => goal.pause())).message, /journal of this branch is damaged/);
	await refusedUnchanged(goal, session, "conflict", () => goal.create({ objective: "y" }));
	const entries = session.entries.size;
	session.endTurn(50);
	assert.equal(session.entries.size, entries, "no usage charged, no resume_safety pause");
	const newer = new FakeFeatureSession();
	newer.appendCustomEntry(GOAL_ENTRY_TYPE, { version: 2, event: {} });
	assert.match(open(newer).goal.view().journalError!, /written by a newer Skiff \(goal journal version 2\)/);
});

test("the goal tool: get, pause and complete", async () => {
	const { goal, session } = open();
	const tool = goal.tools[0]!;
	assert.equal(tool.name, "goal");
	assert.equal(await tool.execute({ op: "get" }, undefined), "There is no session goal.");
	await goal.create({ objective: "Use the tool", tokenBudget: 50 });
	assert.match(await tool.execute({ op: "get" }, undefined), /^Goal goal-g\d+ is active; 0 of 50 tokens used\.\nObjective:\nUse the tool$/);
	assert.match(await tool.execute({ op: "pause" }, undefined), /^The goal is paused\. Goal goal-g\d+ is paused \(manual\)/);
	await assert.rejects(tool.execute({ op: "pause" }, undefined), /Cannot pause the goal: it is paused \(manual\)/);
	await goal.resume();
	assert.match(await tool.execute({ op: "complete" }, undefined), /^The goal is complete\. Goal goal-g\d+ is completed/);
	assert.deepEqual(operations(session), ["created", "paused", "resumed", "completed"]);
});

test("a change the disk refuses is refused whole; what the service decides (usage, a budget pause) is kept for the next write", async () => {
	const { goal, session } = open();
	await goal.create({ objective: "Refactor", tokenBudget: 100 });
	session.diskFull = true;
	for (const action of [() => goal.pin("p"), () => goal.pause(), () => goal.complete(), () => goal.drop()]) {
		await refusedUnchanged(goal, session, "io_error", action);
	}
	session.endTurn(120, 4);
	assert.deepEqual([goal.state.goal!.lifecycle, goal.state.goal!.pauseReason, goal.state.goal!.usage.tokens], ["paused", "budget_exhausted", 120]);
	assert.deepEqual(recorded(session), ["created", "usage", "paused"]);
});

test("a turn that starts right after a pause, within the same millisecond, is not charged (the clock orders finer than ms)", async () => {
	const { goal, session } = open();
	await goal.create({ objective: "Pause me" });
	for (let i = 0; i < 50; i++) {
		goal.pause("manual");
		session.endTurn(10, 0, preciseNow()); // began after the pause, as a prompt sent once the pause is answered
		await goal.resume();
	}
	assert.equal(goal.state.goal!.usage.tokens, 0);
});
