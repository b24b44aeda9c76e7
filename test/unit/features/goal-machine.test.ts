/**
 * The goal state machine, pure: transitions by example, replay failing closed, and property tests: thousands
 * of random change sequences (a seeded generator) never make a transition outside the table, never break the
 * limits, leave the state as it was when refused, and replay to the same state, while a journal holding any
 * refused change stops replay right there.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { applyGoalEvent, GoalError, type GoalState, NO_GOAL, replayGoalJournal } from "../../../src/features/goal/goal.js";
import type { GoalChange, GoalEvent } from "../../../src/features/goal/schemas.js";
import { Prng } from "../../support/prng.js";

const AT = "2025-01-01T00:00:00.000Z";

function event(state: GoalState, change: GoalChange): GoalEvent {
	return { revision: state.revision + 1, at: AT, change };
}

function apply(state: GoalState, ...changes: GoalChange[]): GoalState {
	return changes.reduce((s, change) => applyGoalEvent(s, event(s, change)), state);
}

function refused(state: GoalState, change: GoalChange): GoalError {
	try {
		applyGoalEvent(state, event(state, change));
	} catch (error) {
		assert.ok(error instanceof GoalError, String(error));
		return error;
	}
	assert.fail(`${JSON.stringify(change)} was allowed`);
}

/** Journal records as they are stored in custom entries. */
function records(events: GoalEvent[]): Array<{ id: string; data: unknown }> {
	return events.map((e, i) => ({ id: `e${i + 1}`, data: { version: 1, event: e } }));
}

const CREATED: GoalChange = { kind: "created", id: "goal-a", objective: "Ship it", tokenBudget: 100 };

test("a goal's lifecycle: created active, paused and resumed, completed; then only usage or a new goal", () => {
	let state = apply(NO_GOAL, CREATED);
	assert.deepEqual([state.goal!.lifecycle, state.revision], ["active", 1]);
	state = apply(state, { kind: "pinned", text: "note" }, { kind: "paused", reason: "manual" });
	assert.deepEqual([state.goal!.lifecycle, state.goal!.pauseReason, state.goal!.pins], ["paused", "manual", ["note"]]);
	state = apply(state, { kind: "resumed" }, { kind: "usage", tokens: 40, wallTimeMs: 7 }, { kind: "completed" });
	assert.deepEqual([state.goal!.lifecycle, state.goal!.pauseReason, state.goal!.usage], ["completed", undefined, { tokens: 40, wallTimeMs: 7 }]);
	for (const change of [{ kind: "paused", reason: "manual" }, { kind: "resumed" }, { kind: "completed" }, { kind: "dropped" }, { kind: "pinned", text: "x" }, { kind: "unpinned", index: 0 }] as GoalChange[]) {
		assert.equal(refused(state, change).code, "conflict", change.kind);
	}
	state = apply(state, { kind: "usage", tokens: 5, wallTimeMs: 1 });
	assert.equal(state.goal!.usage.tokens, 45, "usage after a terminal state");
	state = apply(state, { ...CREATED, id: "goal-b" });
	assert.deepEqual([state.goal!.id, state.goal!.lifecycle, state.goal!.usage.tokens], ["goal-b", "active", 0]);
});

test("a spent budget: resume needs a new budget above the tokens used", () => {
	const state = apply(NO_GOAL, CREATED, { kind: "usage", tokens: 120, wallTimeMs: 1 }, { kind: "paused", reason: "budget_exhausted" });
	assert.match(refused(state, { kind: "resumed" }).message, /budget is spent \(120 of 100 tokens\)/);
	assert.match(refused(state, { kind: "resumed", tokenBudget: 120 }).message, /more than the 120 tokens/);
	assert.equal(apply(state, { kind: "resumed", tokenBudget: 500 }).goal!.tokenBudget, 500);
	const manual = apply(NO_GOAL, CREATED, { kind: "paused", reason: "manual" }, { kind: "usage", tokens: 100, wallTimeMs: 1 });
	assert.equal(refused(manual, { kind: "resumed" }).code, "conflict", "spent while paused: a new budget too");
});

test("limits: objective bytes, pins, pin length, unpin index, budgets", () => {
	assert.equal(refused(NO_GOAL, { kind: "created", id: "goal-a", objective: "é".repeat(40_000) }).code, "limit");
	assert.equal(refused(NO_GOAL, { kind: "created", id: "goal-a", objective: "  " }).code, "invalid_command");
	assert.equal(refused(NO_GOAL, { kind: "created", id: "goal-a", objective: "x", tokenBudget: 0 }).code, "invalid_command");
	let state = apply(NO_GOAL, CREATED);
	for (let i = 0; i < 8; i++) state = apply(state, { kind: "pinned", text: `p${i}` });
	assert.match(refused(state, { kind: "pinned", text: "ninth" }).message, /at most 8 pins/);
	assert.equal(refused(apply(NO_GOAL, CREATED), { kind: "pinned", text: "x".repeat(201) }).code, "limit");
	assert.equal(refused(state, { kind: "unpinned", index: 8 }).code, "not_found");
	assert.equal(refused(NO_GOAL, { kind: "paused", reason: "manual" }).code, "conflict");
	assert.throws(() => applyGoalEvent(state, { revision: state.revision + 2, at: AT, change: { kind: "completed" } }), /does not follow/);
});

test("replay rebuilds the state, and fails closed at the first bad record", () => {
	const good: GoalEvent[] = [];
	let state = NO_GOAL;
	for (const change of [CREATED, { kind: "usage", tokens: 150, wallTimeMs: 3 }, { kind: "paused", reason: "budget_exhausted" }] as GoalChange[]) {
		good.push(event(state, change));
		state = apply(state, change);
	}
	assert.deepEqual(replayGoalJournal(records(good)), { state, events: good });
	const resumedWithoutBudget = [...good, event(state, { kind: "resumed" })];
	const broken = replayGoalJournal(records(resumedWithoutBudget));
	assert.deepEqual(broken.state, state, "the state before the bad record");
	assert.match(broken.error!, /^entry e4 \(resumed\): The goal's token budget is spent/);
	const completed = apply(state, { kind: "completed" });
	const afterTerminal = replayGoalJournal(records([...good, event(state, { kind: "completed" }), event(completed, { kind: "paused", reason: "manual" })]));
	assert.match(afterTerminal.error!, /entry e5 \(paused\): Cannot pause the goal: it is completed/);
	const future = replayGoalJournal([...records(good), { id: "e9", data: { version: 2, event: {} } }]);
	assert.match(future.error!, /entry e9 was written by a newer Skiff \(goal journal version 2\)/);
	const malformed = replayGoalJournal([{ id: "e1", data: { version: 1, event: { revision: 1, at: AT, change: { kind: "exploded" } } } }]);
	assert.deepEqual([malformed.state, malformed.error], [NO_GOAL, "entry e1 is not a goal journal event"]);
	const gap = replayGoalJournal(records([good[0]!, { ...good[1]!, revision: 3 }]));
	assert.match(gap.error!, /revision 3 does not follow 1/);
});

// ----------------------------------------------------------------------------------------------------------
// Property tests

/** Which change kinds each lifecycle allows (and without a goal, or after a terminal one). */
const TABLE: Record<string, GoalChange["kind"][]> = {
	none: ["created"],
	active: ["paused", "completed", "dropped", "pinned", "unpinned", "usage"],
	paused: ["resumed", "completed", "dropped", "pinned", "unpinned", "usage"],
	completed: ["created", "usage"],
	dropped: ["created", "usage"],
};

function randomChange(rng: Prng, n: number): GoalChange {
	switch (rng.int(9)) {
		case 0:
			return { kind: "created", id: `goal-g${n}`, objective: rng.chance(0.1) ? " " : `objective ${n}`, ...(rng.chance(0.5) ? { tokenBudget: 1 + rng.int(300) } : {}) };
		case 1:
			return { kind: "paused", reason: rng.pick(["manual", "budget_exhausted", "resume_safety"] as const) };
		case 2:
			return { kind: "resumed", ...(rng.chance(0.5) ? { tokenBudget: 1 + rng.int(600) } : {}) };
		case 3:
			return { kind: "completed" };
		case 4:
			return { kind: "dropped" };
		case 5:
			return { kind: "pinned", text: rng.chance(0.1) ? "x".repeat(201) : `pin ${n}` };
		case 6:
			return { kind: "unpinned", index: rng.int(10) };
		default:
			return { kind: "usage", tokens: rng.int(80), wallTimeMs: rng.int(50) };
	}
}

test("property: random changes make only transitions of the table, keep the limits, and replay to the same state", () => {
	const rng = new Prng(0xc0ffee);
	let accepted = 0;
	let refusedCount = 0;
	for (let sequence = 0; sequence < 3000; sequence++) {
		let state = NO_GOAL;
		const journal: GoalEvent[] = [];
		const refusedEvents: Array<{ at: number; event: GoalEvent }> = [];
		for (let step = 0; step < 25; step++) {
			const change = randomChange(rng, step);
			const next = event(state, change);
			const before = JSON.stringify(state);
			const from = state.goal?.lifecycle ?? "none";
			const context = `sequence ${sequence} step ${step} ${from} + ${JSON.stringify(change)}`;
			try {
				const after = applyGoalEvent(state, next);
				assert.ok(TABLE[from]!.includes(change.kind), `${context}: allowed by the table`);
				const goal = after.goal!;
				assert.ok(goal.pins.length <= 8 && goal.pins.every((p) => p.length > 0 && p.length <= 200), `${context}: pins`);
				assert.equal(goal.lifecycle === "paused", goal.pauseReason !== undefined, `${context}: a pause reason exactly while paused`);
				assert.ok(goal.tokenBudget === undefined || goal.tokenBudget >= 1, `${context}: budget`);
				if (change.kind === "resumed") assert.ok(goal.tokenBudget === undefined || goal.usage.tokens < goal.tokenBudget, `${context}: resumed with budget left`);
				if (change.kind !== "created" && state.goal) assert.ok(goal.usage.tokens >= state.goal.usage.tokens, `${context}: usage only grows`);
				assert.equal(after.revision, state.revision + 1);
				journal.push(next);
				state = after;
				accepted++;
			} catch (error) {
				if (!(error instanceof GoalError)) throw error;
				assert.equal(JSON.stringify(state), before, `${context}: refused and unchanged`);
				refusedEvents.push({ at: journal.length, event: next });
				refusedCount++;
			}
		}
		const replayed = replayGoalJournal(records(journal));
		assert.equal(replayed.error, undefined, `sequence ${sequence}: its own journal replays`);
		assert.deepEqual(replayed.state, state, `sequence ${sequence}: to the same state`);
		// A journal with a refused change where it was refused: replay stops there, with the state before it.
		const bad = refusedEvents.at(-1);
		if (bad) {
			const spliced = [...journal.slice(0, bad.at), bad.event, ...journal.slice(bad.at)];
			const stopped = replayGoalJournal(records(spliced));
			assert.ok(stopped.error, `sequence ${sequence}: a refused change in the journal fails replay`);
			assert.deepEqual(stopped.events, journal.slice(0, bad.at), `sequence ${sequence}: nothing after it is taken`);
		}
	}
	assert.ok(accepted > 10_000 && refusedCount > 10_000, `both paths exercised (${accepted} accepted, ${refusedCount} refused)`);
});

test("a pause by hand keeps who made it until the goal resumes; an older journal's pause says nobody, and replays", () => {
	const byAgent = apply(NO_GOAL, CREATED, { kind: "paused", reason: "manual", by: "agent" });
	assert.deepEqual([byAgent.goal!.pauseReason, byAgent.goal!.pausedBy], ["manual", "agent"]);
	assert.equal(apply(byAgent, { kind: "resumed" }).goal!.pausedBy, undefined);
	assert.equal(apply(byAgent, { kind: "dropped" }).goal!.pausedBy, undefined);
	const older = apply(NO_GOAL, CREATED, { kind: "paused", reason: "manual" });
	assert.equal(older.goal!.pausedBy, undefined);
	const journal: GoalEvent[] = [
		{ revision: 1, at: AT, change: CREATED },
		{ revision: 2, at: AT, change: { kind: "paused", reason: "manual", by: "user" } },
	];
	const replayed = replayGoalJournal(records(journal));
	assert.equal(replayed.error, undefined);
	assert.equal(replayed.state.goal!.pausedBy, "user");
	const bad = replayGoalJournal(records([journal[0]!, { revision: 2, at: AT, change: { kind: "paused", reason: "manual", by: "someone" } as never }]));
	assert.match(bad.error!, /not a goal journal event/);
});
