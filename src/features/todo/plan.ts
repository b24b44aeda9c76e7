/**
 * The todo plan's rules, pure (no I/O): named phases of tasks that may wait for each other, a graph that
 * must stay acyclic. After every change the derived facts (`ready`, `blockedBy`) are recomputed and the ready
 * pointer is applied: a task in progress that is not ready goes back to pending, and when nothing is in
 * progress the first ready task starts. `checkPlan` names the first broken invariant.
 */
import { CodedError, type ErrorCode } from "../../shared/errors.js";
import {
	MAX_PHASE_NAME_CHARS,
	MAX_TASK_CONTENT_CHARS,
	MAX_TODO_PHASES,
	MAX_TODO_TASKS,
	TASK_ID_PATTERN,
	type TodoPhaseView,
	type TodoPlan,
	type TodoStatus,
	type TodoTask,
	type TodoTaskView,
} from "./schemas.js";

/** A refused change: the message names what was wrong; the plan is left as it was. */
export class TodoError extends CodedError {
	constructor(code: ErrorCode, message: string) {
		super(code, message);
		this.name = "TodoError";
	}
}

export const EMPTY_PLAN: TodoPlan = { phases: [], nextId: 1 };

const ID_SHAPE = new RegExp(TASK_ID_PATTERN);

/** Completed and abandoned tasks no longer block anything. */
export function isSettled(status: TodoStatus): boolean {
	return status === "completed" || status === "abandoned";
}

export function allTasks(plan: TodoPlan): TodoTask[] {
	return plan.phases.flatMap((phase) => phase.tasks);
}

export function taskCount(plan: TodoPlan): number {
	return plan.phases.reduce((sum, phase) => sum + phase.tasks.length, 0);
}

/** A task as a message names it: `t3 "Write the parser"`. */
export function describeTask(task: Pick<TodoTask, "id" | "content">): string {
	return `${task.id} "${task.content}"`;
}

/** Whether `task` may be worked on: open, and everything it waits for settled. */
export function isReady(task: TodoTask, byId: ReadonlyMap<string, TodoTask>): boolean {
	if (isSettled(task.status)) return false;
	return task.dependsOn.every((id) => {
		const dependency = byId.get(id);
		return dependency === undefined || isSettled(dependency.status);
	});
}

export function indexTasks(plan: TodoPlan): Map<string, TodoTask> {
	return new Map(allTasks(plan).map((task) => [task.id, task]));
}

/** The plan as clients see it: each task with `ready` and `blockedBy`. */
export function viewPlan(plan: TodoPlan): TodoPhaseView[] {
	const byId = indexTasks(plan);
	return plan.phases.map((phase) => ({
		name: phase.name,
		tasks: phase.tasks.map((task): TodoTaskView => {
			const blockedBy = task.dependsOn
				.map((id) => byId.get(id))
				.filter((d): d is TodoTask => d !== undefined && !isSettled(d.status))
				.map((d) => ({ id: d.id, content: d.content, status: d.status }));
			return { ...task, dependsOn: [...task.dependsOn], ready: isReady(task, byId), blockedBy };
		}),
	}));
}

/**
 * Applies the ready pointer: tasks in progress that are not ready go back to pending; when no task is in
 * progress, the first ready one (in phase and task order) starts. Returns a new plan.
 */
export function normalize(plan: TodoPlan): TodoPlan {
	const next = clonePlan(plan);
	const byId = indexTasks(next);
	for (const task of byId.values()) {
		if (task.status === "in_progress" && !isReady(task, byId)) task.status = "pending";
	}
	const tasks = [...byId.values()];
	if (!tasks.some((task) => task.status === "in_progress")) {
		const first = tasks.find((task) => task.status === "pending" && isReady(task, byId));
		if (first) first.status = "in_progress";
	}
	return next;
}

export function clonePlan(plan: TodoPlan): TodoPlan {
	return {
		nextId: plan.nextId,
		phases: plan.phases.map((phase) => ({ name: phase.name, tasks: phase.tasks.map((task) => ({ ...task, dependsOn: [...task.dependsOn] })) })),
	};
}

/**
 * A cycle of the graph as task ids, the first repeated at the end (`[a, b, a]`: a waits for b, which waits
 * for a), or undefined when the graph is acyclic.
 */
export function findCycle(plan: TodoPlan): string[] | undefined {
	const byId = indexTasks(plan);
	const state = new Map<string, "visiting" | "done">();
	const path: string[] = [];
	const visit = (id: string): string[] | undefined => {
		const seen = state.get(id);
		if (seen === "done") return undefined;
		if (seen === "visiting") return [...path.slice(path.indexOf(id)), id];
		state.set(id, "visiting");
		path.push(id);
		for (const next of byId.get(id)?.dependsOn ?? []) {
			if (!byId.has(next)) continue;
			const cycle = visit(next);
			if (cycle) return cycle;
		}
		path.pop();
		state.set(id, "done");
		return undefined;
	};
	for (const id of byId.keys()) {
		const cycle = visit(id);
		if (cycle) return cycle;
	}
	return undefined;
}

/** A cycle in words: `t1 "A" waits for t2 "B", which waits for t1 "A"`. */
export function describeCycle(plan: TodoPlan, cycle: string[]): string {
	const byId = indexTasks(plan);
	const named = cycle.map((id) => describeTask(byId.get(id) ?? { id, content: "?" }));
	return named.length === 2 ? `${named[0]} would wait for itself` : `${named[0]} waits for ${named.slice(1).join(", which waits for ")}`;
}

/** A name or content with leading or trailing whitespace, or none at all, is refused. */
export function checkText(what: string, text: string, maxChars: number): void {
	if (text.length === 0 || text.trim().length === 0) throw new TodoError("invalid_command", `${what} is empty`);
	if (text !== text.trim()) throw new TodoError("invalid_command", `${what} "${text}" has leading or trailing whitespace`);
	if (text.length > maxChars) throw new TodoError("limit", `${what} is longer than ${maxChars} characters`);
}

/**
 * Checks every invariant of a plan and throws a TodoError naming the first one broken: limits, unique phase
 * names, ids and contents, no surrounding whitespace, known dependencies (none on itself, none twice), an
 * acyclic graph, ids below `nextId`, and the ready pointer.
 */
export function checkPlan(plan: TodoPlan): void {
	if (plan.phases.length > MAX_TODO_PHASES) throw new TodoError("limit", `A plan holds at most ${MAX_TODO_PHASES} phases (this one would have ${plan.phases.length})`);
	const count = taskCount(plan);
	if (count > MAX_TODO_TASKS) throw new TodoError("limit", `A plan holds at most ${MAX_TODO_TASKS} tasks (this one would have ${count})`);
	if (!Number.isInteger(plan.nextId) || plan.nextId < 1) throw new TodoError("invalid_command", `nextId must be a positive integer`);
	const phaseNames = new Set<string>();
	const ids = new Map<string, TodoTask>();
	const contents = new Map<string, TodoTask>();
	for (const phase of plan.phases) {
		checkText("A phase name", phase.name, MAX_PHASE_NAME_CHARS);
		if (phaseNames.has(phase.name)) throw new TodoError("conflict", `Phase name "${phase.name}" appears twice: phase names must be unique`);
		phaseNames.add(phase.name);
		for (const task of phase.tasks) {
			if (!ID_SHAPE.test(task.id)) throw new TodoError("invalid_command", `Task id "${task.id}" is not of the form ${TASK_ID_PATTERN}`);
			const numbered = /^t(\d+)$/.exec(task.id);
			if (numbered && Number(numbered[1]) >= plan.nextId) throw new TodoError("invalid_command", `Task id ${task.id} is not below nextId ${plan.nextId}`);
			const sameId = ids.get(task.id);
			if (sameId) throw new TodoError("conflict", `Task id ${task.id} appears twice ("${sameId.content}" and "${task.content}")`);
			ids.set(task.id, task);
			checkText("A task's content", task.content, MAX_TASK_CONTENT_CHARS);
			const sameContent = contents.get(task.content);
			if (sameContent) {
				throw new TodoError("conflict", `Task content "${task.content}" appears twice (${sameContent.id} and ${task.id}): task contents must be unique`);
			}
			contents.set(task.content, task);
		}
	}
	for (const task of ids.values()) {
		const seen = new Set<string>();
		for (const id of task.dependsOn) {
			if (id === task.id) throw new TodoError("conflict", `${describeTask(task)} cannot wait for itself`);
			if (!ids.has(id)) throw new TodoError("not_found", `${describeTask(task)} waits for ${id}, which is not in the plan`);
			if (seen.has(id)) throw new TodoError("conflict", `${describeTask(task)} lists ${id} twice`);
			seen.add(id);
		}
	}
	const cycle = findCycle(plan);
	if (cycle) throw new TodoError("conflict", `That would make a cycle: ${describeCycle(plan, cycle)}`);
	const tasks = [...ids.values()];
	for (const task of tasks) {
		if (task.status === "in_progress" && !isReady(task, ids)) throw new TodoError("conflict", `${describeTask(task)} is in progress but not ready`);
	}
	if (tasks.some((task) => task.status === "pending" && isReady(task, ids)) && !tasks.some((task) => task.status === "in_progress")) {
		throw new TodoError("conflict", "Tasks are ready but none is in progress");
	}
}

/** Whether two plans hold the same phases, tasks, statuses and dependencies (ids included). */
export function samePlan(a: TodoPlan, b: TodoPlan): boolean {
	return (
		a.phases.length === b.phases.length &&
		a.phases.every((phase, i) => {
			const other = b.phases[i]!;
			return (
				phase.name === other.name &&
				phase.tasks.length === other.tasks.length &&
				phase.tasks.every((task, j) => {
					const them = other.tasks[j]!;
					return (
						task.id === them.id &&
						task.content === them.content &&
						task.status === them.status &&
						task.dependsOn.length === them.dependsOn.length &&
						task.dependsOn.every((id, k) => id === them.dependsOn[k])
					);
				})
			);
		})
	);
}
