/**
 * The session goal of the sessions the page follows: read once with `goal_get`, then replaced by every
 * `goal_updated` (it carries the whole state: goal, allowed actions, journal damage) and charged by every
 * `goal_usage`. The journal is read when the panel shows it and read again after each of those events. The
 * panel's actions are the `goal_*` commands; a refused one comes back as the service's sentence.
 */
import type { CommandName, CommandParams, GoalEvent, GoalView } from "../../../src/client/index.js";
import { failureText, type PanelContext, SessionSnapshots, type Snapshot } from "./panel-context";

/** Most pins a goal holds, and the longest pin (as the service checks them). */
export const MAX_PINS = 8;
export const MAX_PIN_CHARS = 200;

/** A pin's length as the service counts it: characters (an emoji is one), not UTF-16 units. */
export function pinLength(text: string): number {
	return [...text].length;
}
/** The longest objective, in bytes of UTF-8. */
export const MAX_OBJECTIVE_BYTES = 64 * 1024;

export interface GoalJournal {
	events: GoalEvent[];
	total: number;
	journalError?: string;
}

type GoalCommand = Extract<CommandName, "goal_create" | "goal_pause" | "goal_resume" | "goal_complete" | "goal_drop" | "goal_pin" | "goal_unpin">;

export class GoalState {
	private readonly goals: SessionSnapshots<GoalView>;
	private readonly journals: SessionSnapshots<GoalJournal>;

	constructor(private readonly context: PanelContext) {
		this.goals = new SessionSnapshots(context, (sessionId) => context.client.call("goal_get", {}, { sessionId }));
		this.journals = new SessionSnapshots(context, (sessionId) => context.client.call("goal_journal", {}, { sessionId }));
		context.client.on("goal_updated", (event) => {
			this.goals.update(event.sessionId, () => event.state);
			this.journals.refresh(event.sessionId);
		});
		context.client.on("goal_usage", (event) => {
			this.goals.update(event.sessionId, (view) =>
				view.goal?.id === event.goalId ? { ...view, goal: { ...view.goal, usage: event.usage, ...(event.tokenBudget !== undefined ? { tokenBudget: event.tokenBudget } : {}) } } : view,
			);
			this.journals.refresh(event.sessionId);
		});
	}

	goal(sessionId: string): Snapshot<GoalView> {
		return this.goals.get(sessionId);
	}

	journal(sessionId: string): Snapshot<GoalJournal> {
		return this.journals.get(sessionId);
	}

	retry(sessionId: string): void {
		this.goals.forget(sessionId);
		this.journals.forget(sessionId);
	}

	/**
	 * Runs a goal command; resolves undefined, or the service's reason when it was refused. What is shown changes
	 * by the `goal_updated` that every change sends (before its answer), so every page shows the same goal.
	 */
	async run<K extends GoalCommand>(sessionId: string, type: K, params: CommandParams<K>): Promise<string | undefined> {
		try {
			await this.context.client.call(type, params, { sessionId });
			return undefined;
		} catch (error) {
			return failureText(error);
		}
	}
}

/** The size of a text in UTF-8 bytes (how the objective's limit is counted). */
export function utf8Bytes(text: string): number {
	return new TextEncoder().encode(text).length;
}
