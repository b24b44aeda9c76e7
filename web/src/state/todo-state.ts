/**
 * The todo plan of the sessions the page follows: read once with `todo_get`, then replaced by every
 * `todo_updated` (it carries the whole plan), whether the agent's `todo` tool, a command from any page or a move
 * in the session tree changed it. The panel's actions are `todo_op`s; a refused one (a cycle, a duplicate, a
 * task that cannot start) comes back as the service's sentence, for the panel to show where it was asked.
 */
import type { CommandParams, CompletedTask, TodoPhaseView, TodoTaskView } from "../../../src/client/index.js";
import { failureText, type PanelContext, SessionSnapshots, type Snapshot } from "./panel-context";

export interface TodoPlanView {
	phases: TodoPhaseView[];
	/** Tasks the latest change completed (from `todo_updated`), to mark them for a moment. */
	justCompleted: CompletedTask[];
	/** When that change arrived (page clock, ms): the mark shows only right after it, not when the panel reopens. */
	changedAt: number;
}

/** How long tasks a change completed stay marked (the glow's length). */
export const JUST_DONE_MS = 1600;

export type TodoOp = CommandParams<"todo_op">;

/** Counts for the plan's summary line and progress bar. */
export interface TodoCounts {
	total: number;
	done: number;
	dropped: number;
	active: number;
	blocked: number;
	ready: number;
}

export class TodoState {
	private readonly plans: SessionSnapshots<TodoPlanView>;

	constructor(private readonly context: PanelContext) {
		this.plans = new SessionSnapshots(context, async (sessionId) => {
			const plan = await context.client.call("todo_get", {}, { sessionId });
			return { phases: plan.phases, justCompleted: [], changedAt: 0 };
		});
		context.client.on("todo_updated", (event) =>
			this.plans.update(event.sessionId, () => ({ phases: event.phases, justCompleted: event.completed, changedAt: Date.now() })),
		);
	}

	plan(sessionId: string): Snapshot<TodoPlanView> {
		return this.plans.get(sessionId);
	}

	retry(sessionId: string): void {
		this.plans.forget(sessionId);
	}

	/**
	 * Runs one op; resolves undefined, or the service's reason when it was refused. The plan shown changes only
	 * by `todo_updated` (sent for every change, before the answer), so every page shows the same plan.
	 */
	async run(sessionId: string, op: TodoOp): Promise<string | undefined> {
		try {
			await this.context.client.call("todo_op", op, { sessionId });
			return undefined;
		} catch (error) {
			return failureText(error);
		}
	}
}

/** The tasks just completed that are still to be marked now (none once the mark's time is over). */
export function freshlyCompleted(plan: TodoPlanView, now = Date.now()): Set<string> {
	return new Set(now - plan.changedAt < JUST_DONE_MS ? plan.justCompleted.map((t) => t.id) : []);
}

/** The tasks that wait for `id`, directly or through others: what removing it with `cascade` removes too. */
export function dependentsOf(id: string, tasks: TodoTaskView[]): TodoTaskView[] {
	const found = new Set<string>();
	const queue = [id];
	while (queue.length > 0) {
		const target = queue.shift()!;
		for (const task of tasks) {
			if (task.dependsOn.includes(target) && !found.has(task.id) && task.id !== id) {
				found.add(task.id);
				queue.push(task.id);
			}
		}
	}
	return tasks.filter((t) => found.has(t.id));
}

/** Every task of the plan, in phase and task order. */
export function allTasks(phases: TodoPhaseView[]): TodoTaskView[] {
	return phases.flatMap((phase) => phase.tasks);
}

export function countTasks(tasks: TodoTaskView[]): TodoCounts {
	const counts: TodoCounts = { total: tasks.length, done: 0, dropped: 0, active: 0, blocked: 0, ready: 0 };
	for (const task of tasks) {
		if (task.status === "completed") counts.done++;
		else if (task.status === "abandoned") counts.dropped++;
		else if (task.status === "in_progress") counts.active++;
		if (task.blockedBy.length > 0 && (task.status === "pending" || task.status === "in_progress")) counts.blocked++;
		if (task.ready && task.status === "pending") counts.ready++;
	}
	return counts;
}
