/** Control-plane commands of the todo plan (for the plan panel and scripts). */
import { Type } from "typebox";
import { defineCommand, NoFields } from "../../protocol/command.js";
import type { TodoOutcome } from "./ops.js";
import { viewPlan } from "./plan.js";
import { renderOutcome, renderPlan } from "./render.js";
import { CompletedTaskSchema, MAX_TODO_PHASES, TodoOpSchema, TodoPhaseViewSchema, TodoSetPhaseSchema } from "./schemas.js";
import type { ServiceKey } from "../../protocol/service-key.js";
import type { TodoService } from "./service.js";

const TodoChangeSchema = Type.Object(
	{
		phases: Type.Array(TodoPhaseViewSchema, { description: "The whole plan after the op." }),
		completed: Type.Array(CompletedTaskSchema, { description: "Tasks this op completed." }),
		changed: Type.Boolean({ description: "False when the op changed nothing (then nothing was recorded and no event sent)." }),
		summary: Type.String({ description: "What happened and the plan, as the `todo` tool answers the model." }),
	},
	{ title: "TodoChange" },
);

function change(outcome: TodoOutcome) {
	return {
		phases: viewPlan(outcome.plan),
		completed: outcome.completed,
		changed: outcome.changed,
		summary: renderOutcome(outcome.plan, outcome.note, outcome.completed),
	};
}

export function todoCommands(todo: ServiceKey<TodoService>) {
	return [
		defineCommand({
			name: "todo_get",
			summary: "The addressed session's todo plan (of its active branch): phases and tasks with their status, dependencies, readiness and blockers.",
			params: NoFields,
			result: Type.Object({
				phases: Type.Array(TodoPhaseViewSchema),
				summary: Type.String({ description: "The plan as compact text (what the model reads)." }),
			}),
			handler: async (_params, context) => {
				const plan = context.service(todo).of((await context.session()).id).plan();
				return { phases: viewPlan(plan), summary: renderPlan(plan) };
			},
		}),
		defineCommand({
			name: "todo_op",
			summary:
				"One change of the plan, exactly as the agent's `todo` tool makes it (`op` and its fields; see TodoOp). A change is " +
				"recorded in the session and announced with `todo_updated`; a refused one (a cycle, a duplicate, an unknown task, " +
				"an op on an empty plan) changes nothing and says why.",
			params: TodoOpSchema,
			result: TodoChangeSchema,
			handler: async (op, context) => change(context.service(todo).of((await context.session()).id).apply(op, "command")),
		}),
		defineCommand({
			name: "todo_set",
			summary:
				"Replaces the whole plan (an empty list clears it). Tasks may keep their ids; new ones get the next; statuses " +
				"default to `pending`; `dependsOn` names ids or contents of the new plan. Then the ready pointer applies. Emits " +
				"`todo_updated` when the plan changed.",
			params: Type.Object({ phases: Type.Array(TodoSetPhaseSchema, { maxItems: MAX_TODO_PHASES }) }, { additionalProperties: false }),
			result: TodoChangeSchema,
			handler: async ({ phases }, context) => change(context.service(todo).of((await context.session()).id).set(phases)),
		}),
	];
}
