/** The goal's events: every transition (`goal_updated`) and every charge of usage (`goal_usage`). */
import { Type } from "typebox";
import { defineEvent } from "../../protocol/event.js";
import { GoalUsageSchema, GoalViewSchema } from "./schemas.js";

export const GOAL_OPERATIONS = ["created", "paused", "resumed", "completed", "dropped", "pinned", "unpinned", "restored"] as const;
export type GoalOperation = (typeof GOAL_OPERATIONS)[number];

export const goalUpdatedEvent = defineEvent(
	"goal_updated",
	"The session goal changed: a command, the agent's `goal` tool, the budget running out, the session being opened again " +
		"(`resume_safety`), or another branch becoming active (`restored`: tree navigation). Carries the whole state, as goal_get answers it.",
	{
		operation: Type.Enum(GOAL_OPERATIONS, { description: "The transition (`paused` with the reason in `state.goal.pauseReason`), or `restored`." }),
		state: GoalViewSchema,
	},
);

export const goalUsageEvent = defineEvent(
	"goal_usage",
	"A turn's usage was charged to the goal (after each turn while it is active, and for the turn in which it stopped being active).",
	{
		goalId: Type.String(),
		delta: GoalUsageSchema,
		usage: GoalUsageSchema,
		tokenBudget: Type.Optional(Type.Integer({ description: "The goal's budget, if it has one." })),
	},
);

export const goalEvents = [goalUpdatedEvent, goalUsageEvent];
