/**
 * Changes of the todo plan, pure: each takes a plan and returns the next one (with the tasks it completed),
 * or throws a TodoError naming what was wrong, leaving the plan as it was. Every result passes `normalize`
 * (the ready pointer) and `checkPlan` (every invariant), so no sequence of changes can break one.
 */
import { allTasks, checkPlan, checkText, clonePlan, describeTask, indexTasks, isReady, isSettled, normalize, samePlan, taskCount, TodoError } from "./plan.js";
import {
	type CompletedTask,
	MAX_PHASE_NAME_CHARS,
	MAX_TASK_CONTENT_CHARS,
	type TaskInput,
	type TodoOp,
	type TodoPhase,
	type TodoPlan,
	type TodoSetPhase,
	type TodoTask,
} from "./schemas.js";

/** What a change did. */
export interface TodoOutcome {
	/** The plan after the change (the same object when nothing changed). */
	plan: TodoPlan;
	changed: boolean;
	/** Tasks this change completed (each reported once: by the change that completed it). */
	completed: CompletedTask[];
	/** One line on what happened, for the tool's result. */
	note: string;
}

/** The phase new tasks go to when `append` names none and the plan has none. */
export const DEFAULT_PHASE = "Tasks";

/** Applies one op of the `todo` tool (or `todo_op`). */
export function applyTodoOp(plan: TodoPlan, op: TodoOp): TodoOutcome {
	switch (op.op) {
		case "view":
			return unchanged(plan, "");
		case "init":
			return init(plan, op);
		case "append":
			return append(plan, op);
		case "start":
			return start(plan, op);
		case "done":
			return settle(plan, op, "completed");
		case "drop":
			return settle(plan, op, "abandoned");
		case "rm":
			return remove(plan, op);
		case "add_dependency":
			return addDependency(plan, op);
		case "remove_dependency":
			return removeDependency(plan, op);
	}
}

/** Replaces the whole plan (`todo_set`): tasks may keep their ids; dependencies name ids or contents of the new plan. */
export function setPlan(plan: TodoPlan, phases: TodoSetPhase[]): TodoOutcome {
	const given = phases.flatMap((phase) => phase.tasks.map((task) => task.id).filter((id): id is string => id !== undefined));
	let nextId = plan.nextId;
	for (const id of given) {
		const numbered = /^t(\d+)$/.exec(id);
		if (numbered) nextId = Math.max(nextId, Number(numbered[1]) + 1);
	}
	const next: TodoPlan = { phases: [], nextId };
	const pending: Array<{ task: TodoTask; refs: string[] }> = [];
	for (const phase of phases) {
		const tasks: TodoTask[] = [];
		for (const input of phase.tasks) {
			const task: TodoTask = { id: input.id ?? `t${next.nextId++}`, content: input.content, status: input.status ?? "pending", dependsOn: [] };
			tasks.push(task);
			pending.push({ task, refs: input.dependsOn ?? [] });
		}
		next.phases.push({ name: phase.name, tasks });
	}
	checkPlanShape(next);
	for (const { task, refs } of pending) task.dependsOn = refs.map((ref) => resolveIn(next, ref, (missing) => `${describeTask(task)} waits for "${missing}", which is not in the plan`).id);
	return finish(plan, next, phases.length === 0 ? "The plan was cleared." : "The plan was replaced.");
}

function init(plan: TodoPlan, op: TodoOp): TodoOutcome {
	const list = op.list;
	if (!list || list.length === 0) throw new TodoError("invalid_command", "init needs `list`: the phases in order, each with its tasks (`items`)");
	if (list.every((phase) => phase.items.length === 0)) throw new TodoError("invalid_command", "init needs at least one task in `list`");
	const planned = new Map(allTasks(plan).map((task) => [task.content, task]));
	const seen = new Set<string>();
	const next: TodoPlan = { phases: [], nextId: plan.nextId };
	const pending: Array<{ task: TodoTask; refs: string[] }> = [];
	for (const entry of list) {
		checkText("A phase name", entry.phase, MAX_PHASE_NAME_CHARS);
		const tasks: TodoTask[] = [];
		for (const item of entry.items) {
			const { content, refs } = taskInput(item);
			if (seen.has(content)) throw new TodoError("conflict", `Task content "${content}" appears twice in the list: task contents must be unique`);
			seen.add(content);
			// A task already planned keeps its id and status: an init identical to the plan changes nothing.
			const kept = planned.get(content);
			const task: TodoTask = { id: kept?.id ?? `t${next.nextId++}`, content, status: kept?.status ?? "pending", dependsOn: [] };
			tasks.push(task);
			pending.push({ task, refs });
		}
		next.phases.push({ name: entry.phase, tasks });
	}
	checkPlanShape(next);
	for (const { task, refs } of pending) {
		task.dependsOn = refs.map((ref) => resolveIn(next, ref, (missing) => `"${task.content}" waits for "${missing}", which is not in the list`).id);
	}
	const outcome = finish(plan, next, "The plan was replaced.");
	return outcome.changed ? outcome : unchanged(plan, "The plan is unchanged (the same phases, tasks and dependencies).");
}

function append(plan: TodoPlan, op: TodoOp): TodoOutcome {
	const items = op.items;
	if (!items || items.length === 0) throw new TodoError("invalid_command", "append needs `items`: the tasks to add");
	const next = clonePlan(plan);
	const name = op.phase ?? next.phases.at(-1)?.name ?? DEFAULT_PHASE;
	checkText("A phase name", name, MAX_PHASE_NAME_CHARS);
	let phase = next.phases.find((p) => p.name === name);
	if (!phase) {
		phase = { name, tasks: [] };
		next.phases.push(phase);
	}
	const added: Array<{ task: TodoTask; refs: string[] }> = [];
	for (const item of items) {
		const { content, refs } = taskInput(item);
		const task: TodoTask = { id: `t${next.nextId++}`, content, status: "pending", dependsOn: [] };
		phase.tasks.push(task);
		added.push({ task, refs });
	}
	checkPlanShape(next);
	for (const { task, refs } of added) task.dependsOn = refs.map((ref) => resolveIn(next, ref, (missing) => unknownTask(missing)).id);
	return finish(plan, next, `Added ${added.map(({ task }) => task.id).join(", ")} to ${name}.`);
}

function start(plan: TodoPlan, op: TodoOp): TodoOutcome {
	requireTasks(plan, "start");
	const next = clonePlan(plan);
	const byId = indexTasks(next);
	if (op.task !== undefined) {
		const task = resolveIn(next, op.task, unknownTask);
		if (task.status === "in_progress") return unchanged(plan, `${describeTask(task)} is already in progress.`);
		const waiting = task.dependsOn.map((id) => byId.get(id)!).filter((d) => !isSettled(d.status));
		if (waiting.length > 0) {
			throw new TodoError("conflict", `Cannot start ${describeTask(task)}: it waits for ${waiting.map((d) => `${describeTask(d)} (${d.status})`).join(", ")}`);
		}
		const reopened = isSettled(task.status);
		task.status = "in_progress";
		return finish(plan, next, `${reopened ? "Reopened" : "Started"} ${describeTask(task)}.`);
	}
	if (op.phase !== undefined) {
		const phase = findPhase(next, op.phase);
		const ready = phase.tasks.filter((task) => task.status === "pending" && isReady(task, byId));
		if (ready.length === 0) {
			if (phase.tasks.some((task) => task.status === "in_progress")) return unchanged(plan, `The ready tasks of ${phase.name} are already in progress.`);
			throw new TodoError("conflict", `No task of phase "${phase.name}" is ready to start`);
		}
		for (const task of ready) task.status = "in_progress";
		return finish(plan, next, `Started ${ready.map((task) => task.id).join(", ")}.`);
	}
	throw new TodoError("invalid_command", "start needs `task` (an id or the exact content) or `phase`");
}

/** done and drop: one task, every open task of a phase, or every open task. */
function settle(plan: TodoPlan, op: TodoOp, status: "completed" | "abandoned"): TodoOutcome {
	const verb = status === "completed" ? "done" : "drop";
	requireTasks(plan, verb);
	const next = clonePlan(plan);
	let targets: TodoTask[];
	if (op.task !== undefined) {
		const task = resolveIn(next, op.task, unknownTask);
		if (task.status === status) return unchanged(plan, `${describeTask(task)} is already ${status}.`);
		targets = [task];
	} else {
		const scope = op.phase !== undefined ? findPhase(next, op.phase).tasks : allTasks(next);
		targets = scope.filter((task) => !isSettled(task.status));
		if (targets.length === 0) return unchanged(plan, `Nothing open ${op.phase !== undefined ? `in ${op.phase}` : "in the plan"}.`);
	}
	for (const task of targets) task.status = status;
	return finish(plan, next, `${status === "completed" ? "Completed" : "Abandoned"} ${targets.map((task) => task.id).join(", ")}.`);
}

function remove(plan: TodoPlan, op: TodoOp): TodoOutcome {
	requireTasks(plan, "rm");
	if ((op.task === undefined) === (op.phase === undefined)) throw new TodoError("invalid_command", "rm needs either `task` (an id or the exact content) or `phase`");
	const next = clonePlan(plan);
	const phase = op.phase !== undefined ? findPhase(next, op.phase) : undefined;
	const removed = new Set(phase ? phase.tasks.map((task) => task.id) : [resolveIn(next, op.task!, unknownTask).id]);
	const dependents = () => allTasks(next).filter((task) => !removed.has(task.id) && task.dependsOn.some((id) => removed.has(id)));
	if (!op.cascade) {
		const waiting = dependents();
		if (waiting.length > 0) {
			const target = phase ? `phase "${phase.name}"` : describeTask(indexTasks(next).get([...removed][0]!)!);
			throw new TodoError(
				"conflict",
				`Cannot remove ${target}: ${waiting.map(describeTask).join(", ")} ${waiting.length === 1 ? "waits" : "wait"} for it. ` +
					"Pass cascade: true to remove those too, or remove_dependency first",
			);
		}
	}
	for (let more = dependents(); more.length > 0; more = dependents()) for (const task of more) removed.add(task.id);
	next.phases = next.phases.filter((p) => p !== phase).map((p) => ({ name: p.name, tasks: p.tasks.filter((task) => !removed.has(task.id)) }));
	return finish(plan, next, `Removed ${phase ? `phase ${phase.name}: ` : ""}${[...removed].join(", ") || "no tasks"}.`);
}

function addDependency(plan: TodoPlan, op: TodoOp): TodoOutcome {
	requireTasks(plan, "add_dependency");
	const { next, task, targets } = dependencyArgs(plan, op, "add_dependency");
	const fresh = [...new Set(targets.filter((target) => !task.dependsOn.includes(target.id)).map((target) => target.id))];
	if (fresh.length === 0) return unchanged(plan, `${describeTask(task)} already waits for ${targets.map((t) => t.id).join(", ")}.`);
	task.dependsOn.push(...fresh);
	return finish(plan, next, `${describeTask(task)} now waits for ${fresh.join(", ")}.`);
}

function removeDependency(plan: TodoPlan, op: TodoOp): TodoOutcome {
	requireTasks(plan, "remove_dependency");
	const { next, task, targets } = dependencyArgs(plan, op, "remove_dependency");
	for (const target of targets) {
		if (!task.dependsOn.includes(target.id)) throw new TodoError("conflict", `${describeTask(task)} does not wait for ${describeTask(target)}`);
	}
	const gone = new Set(targets.map((target) => target.id));
	task.dependsOn = task.dependsOn.filter((id) => !gone.has(id));
	return finish(plan, next, `${describeTask(task)} no longer waits for ${[...gone].join(", ")}.`);
}

/** The task and the targets of add_dependency or remove_dependency, in a copy of the plan to change. */
function dependencyArgs(plan: TodoPlan, op: TodoOp, name: string): { next: TodoPlan; task: TodoTask; targets: TodoTask[] } {
	if (op.task === undefined || !op.dependsOn || op.dependsOn.length === 0) {
		throw new TodoError("invalid_command", `${name} needs \`task\` and \`dependsOn\` (ids or exact contents)`);
	}
	const next = clonePlan(plan);
	const task = resolveIn(next, op.task, unknownTask);
	return { next, task, targets: op.dependsOn.map((ref) => resolveIn(next, ref, unknownTask)) };
}

/** Normalizes and checks the new plan; reports what it completed. */
function finish(before: TodoPlan, after: TodoPlan, note: string): TodoOutcome {
	const plan = normalize(after);
	checkPlan(plan);
	if (samePlan(before, plan)) return unchanged(before, note || "Nothing changed.");
	const was = indexTasks(before);
	const completed: CompletedTask[] = [];
	for (const phase of plan.phases) {
		for (const task of phase.tasks) {
			if (task.status === "completed" && was.get(task.id)?.status !== "completed") completed.push({ id: task.id, phase: phase.name, content: task.content });
		}
	}
	return { plan, changed: true, completed, note };
}

function unchanged(plan: TodoPlan, note: string): TodoOutcome {
	return { plan, changed: false, completed: [], note };
}

/** Texts and limits checked before dependencies are resolved, so a long or padded content is named as such. */
function checkPlanShape(plan: TodoPlan): void {
	for (const phase of plan.phases) {
		checkText("A phase name", phase.name, MAX_PHASE_NAME_CHARS);
		for (const task of phase.tasks) checkText("A task's content", task.content, MAX_TASK_CONTENT_CHARS);
	}
}

function taskInput(item: TaskInput): { content: string; refs: string[] } {
	return typeof item === "string" ? { content: item, refs: [] } : { content: item.content, refs: item.dependsOn ?? [] };
}

function requireTasks(plan: TodoPlan, op: string): void {
	if (taskCount(plan) === 0) throw new TodoError("conflict", `The plan is empty: nothing to ${op}. Create it with init (or append)`);
}

/** A task by id, else by exact content. */
function resolveIn(plan: TodoPlan, ref: string, missing: (ref: string) => string): TodoTask {
	const tasks = allTasks(plan);
	const found = tasks.find((task) => task.id === ref) ?? tasks.find((task) => task.content === ref);
	if (!found) throw new TodoError("not_found", missing(ref));
	return found;
}

function unknownTask(ref: string): string {
	return `No task "${ref}" in the plan: name a task by its id (t3) or its exact content (view lists them)`;
}

function findPhase(plan: TodoPlan, name: string): TodoPhase {
	const phase = plan.phases.find((p) => p.name === name);
	if (!phase) throw new TodoError("not_found", `No phase "${name}" in the plan (phases: ${plan.phases.map((p) => p.name).join(", ") || "none"})`);
	return phase;
}
