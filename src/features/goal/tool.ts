/** The agent's `goal` tool (while a goal is active): read the goal, pause it, or complete it. Creating, resuming and dropping stay with the user. */
import { Type } from "typebox";
import { defineFeatureTool, type FeatureTool } from "../../agent/feature-tool.js";
import { describeGoal } from "./context.js";
import type { Goal, GoalView } from "./schemas.js";

/** What the tool needs of the session's goal. */
export interface GoalToolTarget {
	view(): GoalView;
	pause(): GoalView;
	complete(): GoalView;
}

const GoalToolSchema = Type.Object(
	{
		op: Type.Enum(["get", "pause", "complete"], {
			description: "get: the goal, its budget and pins; pause: stop working toward it until the user resumes it; complete: the objective is met.",
		}),
	},
	{ additionalProperties: false },
);

export function createGoalTool(target: GoalToolTarget): FeatureTool<typeof GoalToolSchema> {
	return defineFeatureTool({
		name: "goal",
		label: "Goal",
		description:
			"The session goal the user set (an objective, maybe a token budget, and pinned notes). Use get to read it, " +
			"complete once the objective is fully met, or pause when you cannot go on without the user.",
		parameters: GoalToolSchema,
		async execute({ op }) {
			if (op === "get") return describeGoal(target.view().goal);
			const goal: Goal | undefined = (op === "pause" ? target.pause() : target.complete()).goal;
			return op === "pause" ? `The goal is paused. ${describeGoal(goal)}` : `The goal is complete. ${describeGoal(goal)}`;
		},
	});
}
