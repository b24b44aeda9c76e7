/** What the model reads about the goal: the hidden context before each prompt, and the continuation that starts work. */
import type { Goal } from "./schemas.js";

/** The hidden message before each prompt while the goal is active. */
export const GOAL_CONTEXT_TYPE = "goal-context";
/** The hidden message that starts the one turn activating a goal begins. */
export const GOAL_CONTINUE_TYPE = "goal-continue";

/** The goal as the model sees it: the objective, the budget, the pins, and how to use the goal tool. */
export function goalContext(goal: Goal): string {
	const budget =
		goal.tokenBudget === undefined
			? `No token budget (${goal.usage.tokens} tokens used so far).`
			: `Token budget: ${goal.usage.tokens} of ${goal.tokenBudget} tokens used.`;
	const pins = goal.pins.length ? ["Pinned notes:", ...goal.pins.map((pin) => `- ${pin}`)] : [];
	return [
		"The session has an active goal, set by the user:",
		goal.objective,
		"",
		budget,
		...pins,
		"Use the goal tool to inspect the goal (get), to pause it, or to complete it once the objective is met.",
	].join("\n");
}

/** The continuation: the goal, and the instruction to start now. */
export function continuationText(goal: Goal): string {
	return `${goalContext(goal)}\n\nStart concrete work toward the active session goal now.`;
}

/** The goal as the tool answers `get`. */
export function describeGoal(goal: Goal | undefined): string {
	if (!goal) return "There is no session goal.";
	const status = goal.pauseReason ? `${goal.lifecycle} (${goal.pauseReason})` : goal.lifecycle;
	const budget = goal.tokenBudget === undefined ? `${goal.usage.tokens} tokens used, no budget` : `${goal.usage.tokens} of ${goal.tokenBudget} tokens used`;
	const pins = goal.pins.length ? `\nPins:\n${goal.pins.map((pin, i) => `${i}. ${pin}`).join("\n")}` : "";
	return `Goal ${goal.id} is ${status}; ${budget}.\nObjective:\n${goal.objective}${pins}`;
}
