/** The todo plan's event: sent to the session's followers after every change, whoever made it. */
import { type Static, Type } from "typebox";
import { defineEvent } from "../../protocol/event.js";
import { CompletedTaskSchema, TodoPhaseViewSchema } from "./schemas.js";

export const TODO_CAUSES = ["tool", "command", "restored"] as const;

export const todoUpdatedEvent = defineEvent(
	"todo_updated",
	"The session's todo plan changed: by the agent's `todo` tool, by a command (`todo_op`, `todo_set`), or because another " +
		"branch became active (`restored`: tree navigation). Carries the whole plan.",
	{
		phases: Type.Array(TodoPhaseViewSchema, { description: "The whole plan, as todo_get answers it." }),
		completed: Type.Array(CompletedTaskSchema, { description: "The tasks this change completed (each reported once)." }),
		cause: Type.Enum(TODO_CAUSES, { description: "`tool`, `command`, or `restored` (the active branch changed)." }),
	},
);

export type TodoUpdatedEvent = Omit<Static<typeof todoUpdatedEvent.schema>, "sessionId" | "seq">;
export type TodoCause = (typeof TODO_CAUSES)[number];

export const todoEvents = [todoUpdatedEvent];
