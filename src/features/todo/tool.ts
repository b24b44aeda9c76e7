/** The agent's `todo` tool: one op per call, answered with what happened and the compact plan. */
import { defineFeatureTool, type FeatureTool } from "../../agent/feature-tool.js";
import type { TodoOutcome } from "./ops.js";
import { renderOutcome } from "./render.js";
import { type TodoOp, TodoOpSchema } from "./schemas.js";

const DESCRIPTION = [
	"The session's task plan: named phases of tasks; a task may wait for other tasks (dependsOn), and the graph must stay acyclic.",
	"Make a plan with init before multi-step work, keep it current as you go (start a task when you begin it, done when it is finished, drop what is no longer needed), and view it when unsure.",
	"Name a task by its id (t1, t2, ...) or its exact content. When nothing is in progress, the first ready task starts by itself.",
	"Contents and phase names are unique and have no leading or trailing whitespace. A refused change names the cycle or the duplicate and changes nothing.",
].join(" ");

export function createTodoTool(apply: (op: TodoOp) => TodoOutcome): FeatureTool<typeof TodoOpSchema> {
	return defineFeatureTool({
		name: "todo",
		label: "Todo",
		description: DESCRIPTION,
		parameters: TodoOpSchema,
		async execute(params) {
			const outcome = apply(params);
			return renderOutcome(outcome.plan, outcome.note, outcome.completed);
		},
	});
}
