/**
 * The goal of one session: every transition is a journal event recorded as a `custom` entry (pi keeps it and
 * otherwise ignores it); the state is the journal of the active branch replayed, so resume, fork, clone and
 * tree navigation restore it. While the goal is active the model gets it as hidden context before each prompt
 * and has the `goal` tool; each turn's usage is charged to it, and it pauses itself when its budget is spent.
 * When it stops being active by its budget or a command, the run under way stops at its next turn boundary.
 * Activating it starts exactly one hidden continuation turn. A session opened again from its file pauses an
 * active goal (`resume_safety`), so nothing works toward it unattended after a restart.
 */
import { randomUUID } from "node:crypto";
import { GOAL_ENTRY_TYPE } from "../../agent/goal-record.js";
import type { FeatureSession, HiddenContext, HiddenTurnStart, SessionFeatures, TurnUsage } from "../../agent/types.js";
import { CodedError } from "../../shared/errors.js";
import { preciseNow } from "../../shared/precise-clock.js";
import type { FeatureTool } from "../../agent/feature-tool.js";
import { continuationText, GOAL_CONTEXT_TYPE, GOAL_CONTINUE_TYPE, goalContext } from "./context.js";
import { type GoalOperation, goalUpdatedEvent, goalUsageEvent } from "./events.js";
import { allowedActions, applyGoalEvent, budgetSpent, GOAL_RECORD_VERSION, type GoalReplay, type GoalState, NO_GOAL, replayGoalJournal } from "./goal.js";
import type { Goal, GoalActor, GoalChange, GoalEvent, GoalView, PauseReason } from "./schemas.js";
import { createGoalTool } from "./tool.js";

/** The custom entry type of journal events (declared in the runtime, which reads a goal's state for a session list). */
export { GOAL_ENTRY_TYPE } from "../../agent/goal-record.js";

/** Who asks for a change: a command (the user), or the agent with its goal tool. */

/** A mutation's answer: the state after it, and the continuation turn it started, if asked to. */
export interface GoalResult extends GoalView {
	continuation?: HiddenTurnStart;
}

export class GoalSession implements SessionFeatures {
	readonly tools: FeatureTool[];
	private replay: GoalReplay = { state: NO_GOAL, events: [] };
	private session: FeatureSession | undefined;
	private reopened = false;
	/** When the goal last stopped being active (epoch ms): a turn that began before is still charged to it. */
	private leftActiveAt: number | undefined;

	constructor(private readonly newId: () => string = () => `goal-${randomUUID().replace(/-/g, "").slice(0, 12)}`) {
		// The agent pausing or completing the goal with its tool ends its run itself (see stopsRun).
		this.tools = [createGoalTool({ view: () => this.view(), pause: () => this.pause("manual", "agent"), complete: () => this.complete("agent") })];
	}

	/** The session this goal lives in, once it is open. */
	get link(): FeatureSession | undefined {
		return this.session;
	}

	get state(): GoalState {
		return this.replay.state;
	}

	/** The goal when it is active and its journal sound: only then does it steer the model. */
	private get activeGoal(): Goal | undefined {
		const goal = this.replay.state.goal;
		return goal?.lifecycle === "active" && this.replay.error === undefined ? goal : undefined;
	}

	bind(session: FeatureSession, how: { reopened: boolean }): void {
		this.session = session;
		this.reopened = how.reopened;
		this.replay = this.readJournal(session);
		session.onTurnEnd((usage) => this.charge(usage));
		session.onBranchChanged(() => this.restore());
	}

	/**
	 * The session is loaded (the only one with its id). Opened again from its file, an active goal pauses
	 * (`resume_safety`); the event goes out once the session's followers are connected to it.
	 */
	attached(): void {
		if (this.reopened && this.activeGoal) this.record({ kind: "paused", reason: "resume_safety" }, "paused", { later: true, keep: true });
		else this.pauseIfSpent({ later: true });
	}

	activeToolNames(): string[] {
		return this.activeGoal ? ["goal"] : [];
	}

	async contextForPrompt(): Promise<HiddenContext | undefined> {
		const goal = this.activeGoal;
		return goal ? { customType: GOAL_CONTEXT_TYPE, content: goalContext(goal) } : undefined;
	}

	view(): GoalView {
		const { state, error } = this.replay;
		return {
			...(state.goal ? { goal: state.goal } : {}),
			revision: state.revision,
			actions: error === undefined ? allowedActions(state) : [],
			...(error !== undefined ? { journalError: error } : {}),
		};
	}

	/** The journal of the active branch (the newest `limit` events) and where replay stopped, if it did. */
	journal(limit: number): { events: GoalEvent[]; total: number; journalError?: string } {
		const { events, error } = this.replay;
		return { events: events.slice(-limit), total: events.length, ...(error !== undefined ? { journalError: error } : {}) };
	}

	/** Creates the goal (active); `activate` also starts one continuation turn. */
	async create(options: { objective: string; tokenBudget?: number; activate?: boolean }): Promise<GoalResult> {
		const session = this.writable();
		const change: GoalChange = {
			kind: "created",
			id: this.newId(),
			objective: options.objective,
			...(options.tokenBudget !== undefined ? { tokenBudget: options.tokenBudget } : {}),
		};
		this.check(change);
		session.checkCanRecord();
		if (options.activate) session.checkCanStartTurn(); // nothing is recorded when the turn could not start
		this.record(change, "created");
		return this.continueIf(options.activate);
	}

	/** Resumes a paused goal (a spent budget needs a new `tokenBudget`); `activate` also starts one continuation turn. */
	async resume(options: { tokenBudget?: number; activate?: boolean } = {}): Promise<GoalResult> {
		const session = this.writable();
		this.check({ kind: "resumed", ...(options.tokenBudget !== undefined ? { tokenBudget: options.tokenBudget } : {}) });
		session.checkCanRecord();
		if (options.activate) session.checkCanStartTurn();
		this.record({ kind: "resumed", ...(options.tokenBudget !== undefined ? { tokenBudget: options.tokenBudget } : {}) }, "resumed");
		return this.continueIf(options.activate);
	}

	pause(reason: PauseReason = "manual", by: GoalActor = "user"): GoalView {
		// Who paused it is kept, so that clients can say so ("Paused by the agent"), not "by you or by the agent".
		return this.asked({ kind: "paused", reason, ...(reason === "manual" ? { by } : {}) }, "paused", by);
	}

	complete(by: GoalActor = "user"): GoalView {
		return this.asked({ kind: "completed" }, "completed", by);
	}

	drop(): GoalView {
		return this.asked({ kind: "dropped" }, "dropped");
	}

	pin(text: string): GoalView {
		return this.asked({ kind: "pinned", text }, "pinned");
	}

	unpin(index: number): GoalView {
		return this.asked({ kind: "unpinned", index }, "unpinned");
	}

	/** A change a command (`user`) or the tool (`agent`) asks for: checked, then refused while the session moves in its tree. */
	private asked(change: GoalChange, operation: GoalOperation, by: GoalActor = "user"): GoalView {
		this.check(change);
		this.session!.checkCanRecord();
		this.record(change, operation, { stopsRun: by === "user" });
		return this.view();
	}

	private async continueIf(activate: boolean | undefined): Promise<GoalResult> {
		const view = this.view();
		const goal = this.activeGoal;
		if (!activate || !goal) return view;
		const continuation = await this.session!.startHiddenTurn({ customType: GOAL_CONTINUE_TYPE, content: continuationText(goal) });
		return { ...view, continuation };
	}

	/** Throws when the change is not allowed now; changes nothing. */
	private check(change: GoalChange): void {
		this.writable();
		applyGoalEvent(this.replay.state, this.nextEvent(change));
	}

	/**
	 * Validates a change against the state, records it, then applies it and tells the followers (`later`: in a
	 * moment, once they are connected to a session just opened). A refused change records nothing; so does one
	 * the disk refuses, unless it is one the service itself decided (`keep`: usage, a pause), which the session
	 * keeps and writes with its next write. `stopsRun`: when the change ends the goal's being active, the run under
	 * way (which worked toward it: the goal was its hidden context) stops at its next turn boundary; without
	 * this a spent budget paused the goal while a model calling tools went on for as long as it liked (issue 20).
	 */
	private record(change: GoalChange, operation: GoalOperation | "usage", options: { later?: boolean; keep?: boolean; stopsRun?: boolean } = {}): void {
		const session = this.writable();
		const event = this.nextEvent(change);
		const before = this.replay.state.goal;
		const state = applyGoalEvent(this.replay.state, event);
		session.appendCustomEntry(GOAL_ENTRY_TYPE, { version: GOAL_RECORD_VERSION, event }, { keep: options.keep });
		this.replay = { state, events: [...this.replay.events, event] };
		if (before?.lifecycle === "active" && state.goal?.lifecycle !== "active") {
			this.leftActiveAt = preciseNow();
			if (options.stopsRun) session.stopRun({ reason: "goal_inactive", message: whyStopped(state.goal!) });
		}
		const announce = () => {
			if (change.kind === "usage") {
				const goal = state.goal!;
				session.emit({
					type: goalUsageEvent.type,
					goalId: goal.id,
					delta: { tokens: change.tokens, wallTimeMs: change.wallTimeMs },
					usage: goal.usage,
					...(goal.tokenBudget !== undefined ? { tokenBudget: goal.tokenBudget } : {}),
				});
			} else {
				session.emit({ type: goalUpdatedEvent.type, operation, state: this.viewOf(state) });
			}
		};
		if (options.later) queueMicrotask(announce);
		else announce();
	}

	private viewOf(state: GoalState): GoalView {
		return { ...(state.goal ? { goal: state.goal } : {}), revision: state.revision, actions: allowedActions(state) };
	}

	private nextEvent(change: GoalChange): GoalEvent {
		return { revision: this.replay.state.revision + 1, at: new Date().toISOString(), change };
	}

	/** After each turn: its usage goes to the goal that was active during it; a spent budget pauses the goal. */
	private charge(usage: TurnUsage): void {
		const goal = this.replay.state.goal;
		if (!goal || this.replay.error !== undefined || !this.session) return;
		const wasActive = goal.lifecycle === "active" || (this.leftActiveAt !== undefined && this.leftActiveAt >= usage.startedAt);
		if (!wasActive) return;
		this.record({ kind: "usage", tokens: usage.tokens, wallTimeMs: usage.wallTimeMs }, "usage", { keep: true });
		this.pauseIfSpent();
	}

	private pauseIfSpent(options: { later?: boolean } = {}): void {
		const goal = this.activeGoal;
		if (goal && budgetSpent(goal)) this.record({ kind: "paused", reason: "budget_exhausted" }, "paused", { ...options, keep: true, stopsRun: true });
	}

	/** The active branch changed: its journal applies, and followers hear of it when the state differs. */
	private restore(): void {
		const session = this.session;
		if (!session) return;
		const before = JSON.stringify(this.view());
		this.replay = this.readJournal(session);
		this.leftActiveAt = undefined;
		if (JSON.stringify(this.view()) !== before) session.emit({ type: goalUpdatedEvent.type, operation: "restored", state: this.view() });
		this.pauseIfSpent();
	}

	private readJournal(session: FeatureSession): GoalReplay {
		return replayGoalJournal(session.customEntries(GOAL_ENTRY_TYPE));
	}

	/** The session, when the goal may change: it is open and its journal is sound. */
	private writable(): FeatureSession {
		if (!this.session) throw new CodedError("unavailable", "The session is not open yet");
		if (this.replay.error !== undefined) {
			throw new CodedError(
				"conflict",
				`The goal journal of this branch is damaged (${this.replay.error}), so the goal cannot change: move to an earlier point of the tree, or continue in a new session`,
			);
		}
		return this.session;
	}
}

/** Why the run working toward the goal was stopped, for people (the goal is no longer active). */
function whyStopped(goal: Goal): string {
	if (goal.pauseReason === "budget_exhausted") {
		return `The session goal paused: its token budget is spent (${goal.usage.tokens} of ${goal.tokenBudget} tokens used); resume it with a new budget to go on`;
	}
	if (goal.lifecycle === "paused") return "The session goal was paused";
	return `The session goal was ${goal.lifecycle === "completed" ? "marked completed" : "dropped"}`;
}
