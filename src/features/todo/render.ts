/** The todo plan as compact text the model reads: the `todo` tool's result and the plan's hidden context. */
import { boundText } from "../../agent/feature-tool.js";
import { allTasks, indexTasks, isReady } from "./plan.js";
import type { CompletedTask, TodoPlan, TodoStatus } from "./schemas.js";

const MARKS: Record<TodoStatus, string> = { pending: "[ ]", in_progress: "[>]", completed: "[x]", abandoned: "[-]" };

/** `3/7 done · 1 active · 2 blocked` */
export function planCounts(plan: TodoPlan): string {
	const byId = indexTasks(plan);
	const tasks = allTasks(plan);
	const done = tasks.filter((t) => t.status === "completed").length;
	const active = tasks.filter((t) => t.status === "in_progress").length;
	const blocked = tasks.filter((t) => t.status === "pending" && !isReady(t, byId)).length;
	const dropped = tasks.filter((t) => t.status === "abandoned").length;
	return [`${done}/${tasks.length} done`, `${active} active`, `${blocked} blocked`, ...(dropped ? [`${dropped} dropped`] : [])].join(" · ");
}

/**
 * The plan, one line per task: `[>] t2 Write the parser (after t1)`; a blocked task says what it waits for.
 * Marks: `[ ]` pending, `[>]` in progress, `[x]` completed, `[-]` abandoned.
 */
export function renderPlan(plan: TodoPlan): string {
	if (plan.phases.length === 0) return "The plan is empty.";
	const byId = indexTasks(plan);
	const lines = [`Plan: ${planCounts(plan)}`];
	for (const phase of plan.phases) {
		lines.push(`## ${phase.name}`);
		if (phase.tasks.length === 0) lines.push("(no tasks)");
		for (const task of phase.tasks) {
			const waits = task.dependsOn.filter((id) => {
				const status = byId.get(id)?.status;
				return status !== "completed" && status !== "abandoned";
			});
			const after = task.dependsOn.length === 0 ? "" : waits.length > 0 && task.status === "pending" ? ` (blocked by ${waits.join(", ")})` : ` (after ${task.dependsOn.join(", ")})`;
			lines.push(`${MARKS[task.status]} ${task.id} ${task.content}${after}`);
		}
	}
	return lines.join("\n");
}

/** The tool's result: what happened, what was just completed (once), and the plan. */
export function renderOutcome(plan: TodoPlan, note: string, completed: CompletedTask[]): string {
	const parts = [note, completed.length ? `Newly completed: ${completed.map((t) => `${t.id} ${t.content}`).join("; ")}` : "", renderPlan(plan)];
	return boundText(parts.filter((p) => p !== "").join("\n"));
}
