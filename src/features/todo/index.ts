/** The todo plan as a feature: its commands and event, and a plan in every session (the `todo` tool, its context). */
import { serviceKey } from "../../protocol/service-key.js";
import { defineFeature } from "../module.js";
import { todoCommands } from "./commands.js";
import { todoEvents } from "./events.js";
import { TodoService } from "./service.js";

const key = serviceKey<TodoService>("todo");

export const todoFeature = defineFeature({
	key,
	events: todoEvents,
	commands: todoCommands(key),
	start: () => new TodoService(),
	// A job's child plans too: a workflow's supervisor plans with it.
	sessions: {
		serves: ["top-level", "job", "persona"],
		contribute: (todo) => todo.contribution(),
	},
});

export type { TodoService } from "./service.js";
export { allTasks, EMPTY_PLAN, isSettled, viewPlan } from "./plan.js";
export { renderPlan } from "./render.js";
export { type TodoPlan, TodoPhaseViewSchema, TodoPlanSchema, type TodoStatus, type TodoTask } from "./schemas.js";
