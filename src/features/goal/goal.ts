/**
 * The session goal's state machine, pure (no I/O). A session has at most one current goal: `active`, `paused`
 * (manual, budget_exhausted, resume_safety), or the terminal `completed` and `dropped`. Every transition is a
 * journal event; the state is the journal replayed, and replay fails closed: it stops at the first event that
 * is malformed, from a newer version, out of sequence or not allowed in the state it meets (nothing but usage
 * after a terminal state, except a new goal; no resume of a spent budget without a new one).
 */
import { GOAL_RECORD_VERSION } from "../../agent/goal-record.js";
import { compileOnFirstUse } from "../../shared/compile-on-first-use.js";
import { CodedError, type ErrorCode } from "../../shared/errors.js";
import {
	type Goal,
	type GoalAction,
	type GoalChange,
	type GoalEvent,
	GoalEventSchema,
	MAX_OBJECTIVE_BYTES,
	MAX_PIN_CHARS,
	MAX_PINS,
	MAX_TOKEN_BUDGET,
} from "./schemas.js";

/** A refused transition: the message says why; nothing changes. */
export class GoalError extends CodedError {
	constructor(code: ErrorCode, message: string) {
		super(code, message);
		this.name = "GoalError";
	}
}

/** The goal state of a branch: the current goal (if any) and how many events led to it. */
export interface GoalState {
	goal?: Goal;
	revision: number;
}

export const NO_GOAL: GoalState = { revision: 0 };

/** The version of journal records this code writes (and the newest it reads): the runtime's, which reads them for a session list. */
export { GOAL_RECORD_VERSION } from "../../agent/goal-record.js";

export function isTerminal(goal: Goal): boolean {
	return goal.lifecycle === "completed" || goal.lifecycle === "dropped";
}

/** The goal has a token budget and has used all of it. */
export function budgetSpent(goal: Goal): boolean {
	return goal.tokenBudget !== undefined && goal.usage.tokens >= goal.tokenBudget;
}

/** `active`, `paused (budget_exhausted)`, ... */
export function describeLifecycle(goal: Goal): string {
	return goal.pauseReason ? `${goal.lifecycle} (${goal.pauseReason})` : goal.lifecycle;
}

/** The actions the state allows (a panel shows only these). */
export function allowedActions(state: GoalState): GoalAction[] {
	const goal = state.goal;
	if (!goal || isTerminal(goal)) return ["create"];
	const pins: GoalAction[] = goal.pins.length < MAX_PINS ? ["pin"] : [];
	if (goal.pins.length > 0) pins.push("unpin");
	if (goal.lifecycle === "active") return ["pause", "complete", "drop", ...pins];
	return ["resume", "complete", "drop", ...pins];
}

/**
 * The state after one event; throws a GoalError when the event is out of sequence or its change is not
 * allowed (conflict) or not valid (invalid_command, limit, not_found) in `state`. Never changes `state`.
 */
export function applyGoalEvent(state: GoalState, event: GoalEvent): GoalState {
	if (event.revision !== state.revision + 1) throw new GoalError("conflict", `revision ${event.revision} does not follow ${state.revision}`);
	const goal = nextGoal(state.goal, event.change, event.at);
	return { goal, revision: event.revision };
}

function nextGoal(goal: Goal | undefined, change: GoalChange, at: string): Goal {
	if (change.kind === "created") {
		if (goal && !isTerminal(goal)) throw new GoalError("conflict", `A goal is already ${describeLifecycle(goal)}: complete or drop it before creating another`);
		checkObjective(change.objective);
		if (change.tokenBudget !== undefined) checkBudget(change.tokenBudget, 0);
		return {
			id: change.id,
			objective: change.objective,
			...(change.tokenBudget !== undefined ? { tokenBudget: change.tokenBudget } : {}),
			pins: [],
			lifecycle: "active",
			createdAt: at,
			updatedAt: at,
			usage: { tokens: 0, wallTimeMs: 0 },
		};
	}
	if (!goal) throw new GoalError("conflict", "There is no goal: create one first (goal_create)");
	const next: Goal = { ...goal, pins: [...goal.pins], usage: { ...goal.usage }, updatedAt: at };
	switch (change.kind) {
		case "usage":
			// Allowed in every state: the turn that completed or paused the goal is still charged to it.
			if (!isCount(change.tokens) || !isCount(change.wallTimeMs)) throw new GoalError("invalid_command", "usage must be whole numbers of 0 or more");
			next.usage = { tokens: goal.usage.tokens + change.tokens, wallTimeMs: goal.usage.wallTimeMs + change.wallTimeMs };
			return next;
		case "paused":
			if (goal.lifecycle !== "active") throw refused("pause", goal);
			next.lifecycle = "paused";
			next.pauseReason = change.reason;
			if (change.by) next.pausedBy = change.by;
			return next;
		case "resumed": {
			if (goal.lifecycle !== "paused") throw refused("resume", goal);
			if (change.tokenBudget !== undefined) {
				checkBudget(change.tokenBudget, goal.usage.tokens);
				next.tokenBudget = change.tokenBudget;
			} else if (budgetSpent(goal) || goal.pauseReason === "budget_exhausted") {
				throw new GoalError(
					"conflict",
					`The goal's token budget is spent (${goal.usage.tokens} of ${goal.tokenBudget} tokens): resume it with a new tokenBudget above ${goal.usage.tokens}`,
				);
			}
			next.lifecycle = "active";
			delete next.pauseReason;
			delete next.pausedBy;
			return next;
		}
		case "completed":
		case "dropped":
			if (isTerminal(goal)) throw refused(change.kind === "completed" ? "complete" : "drop", goal);
			next.lifecycle = change.kind;
			delete next.pauseReason;
			delete next.pausedBy;
			return next;
		case "pinned":
			if (isTerminal(goal)) throw refused("add a pin to", goal);
			if (change.text.trim().length === 0) throw new GoalError("invalid_command", "A pin is empty");
			if (characters(change.text) > MAX_PIN_CHARS) throw new GoalError("limit", `A pin is at most ${MAX_PIN_CHARS} characters (this one has ${characters(change.text)})`);
			if (goal.pins.length >= MAX_PINS) throw new GoalError("limit", `A goal holds at most ${MAX_PINS} pins: unpin one first`);
			next.pins.push(change.text);
			return next;
		case "unpinned":
			if (isTerminal(goal)) throw refused("remove a pin of", goal);
			if (!Number.isInteger(change.index) || change.index < 0 || change.index >= goal.pins.length) {
				throw new GoalError("not_found", `No pin at index ${change.index} (the goal has ${goal.pins.length} pin${goal.pins.length === 1 ? "" : "s"}, counted from 0)`);
			}
			next.pins.splice(change.index, 1);
			return next;
	}
}

function refused(action: string, goal: Goal): GoalError {
	return new GoalError("conflict", `Cannot ${action} the goal: it is ${describeLifecycle(goal)}`);
}

function isCount(value: number): boolean {
	return Number.isInteger(value) && value >= 0;
}

export function checkObjective(objective: string): void {
	if (objective.trim().length === 0) throw new GoalError("invalid_command", "The objective is empty");
	const bytes = Buffer.byteLength(objective, "utf8");
	if (bytes > MAX_OBJECTIVE_BYTES) throw new GoalError("limit", `The objective is ${bytes} bytes: at most ${MAX_OBJECTIVE_BYTES} (64 KiB)`);
}

function checkBudget(budget: number, used: number): void {
	if (!Number.isInteger(budget) || budget < 1 || budget > MAX_TOKEN_BUDGET) {
		throw new GoalError("invalid_command", `tokenBudget must be a whole number from 1 to ${MAX_TOKEN_BUDGET}`);
	}
	if (budget <= used) throw new GoalError("invalid_command", `tokenBudget must be more than the ${used} tokens the goal has already used`);
}

/** A journal as replayed: the state, the events that led to it, and where replay stopped, if it did. */
export interface GoalReplay {
	state: GoalState;
	events: GoalEvent[];
	/** The first record that could not be replayed: which entry and why. */
	error?: string;
}

const checkEvent = compileOnFirstUse(GoalEventSchema);

/**
 * Replays journal records (`{version, event}` data of custom entries, oldest first). Stops at the first record
 * that is malformed, from a newer version, out of sequence or not allowed, and says which and why.
 */
export function replayGoalJournal(records: ReadonlyArray<{ id: string; data: unknown }>): GoalReplay {
	let state = NO_GOAL;
	const events: GoalEvent[] = [];
	for (const record of records) {
		const data = record.data as { version?: unknown; event?: unknown } | null | undefined;
		const version = data?.version;
		if (typeof version === "number" && version > GOAL_RECORD_VERSION) {
			return { state, events, error: `entry ${record.id} was written by a newer Skiff (goal journal version ${version})` };
		}
		if (version !== GOAL_RECORD_VERSION || !checkEvent().Check(data?.event)) return { state, events, error: `entry ${record.id} is not a goal journal event` };
		const event = data!.event as GoalEvent;
		try {
			state = applyGoalEvent(state, event);
		} catch (error) {
			return { state, events, error: `entry ${record.id} (${event.change.kind}): ${(error as Error).message}` };
		}
		events.push(event);
	}
	return { state, events };
}

/** Characters as a person counts them (code points: an emoji is one, not two UTF-16 units). */
function characters(text: string): number {
	let count = 0;
	for (const _ of text) count++;
	return count;
}
