/** Model and thinking level of a session. */
import { Type } from "typebox";
import { THINKING_LEVELS } from "../../agent/types.js";
import { defineCommand, NoFields } from "../command.js";


export const getAvailableModels = defineCommand({
	name: "get_available_models",
	summary: "Models that have credentials configured (environment, auth.json or models.json).",
	params: NoFields,
	result: "`{models: Model[]}` (pi model descriptions without request headers)",
	handler: async (_params, context) => ({ models: (await context.session()).handle.availableModels() }),
});

export const setModel = defineCommand({
	name: "set_model",
	summary: "Switches the session's model for its next turns.",
	params: Type.Object(
		{ provider: Type.String({ minLength: 1 }), modelId: Type.String({ minLength: 1 }) },
		{ additionalProperties: false },
	),
	result: "the selected Model",
	handler: async ({ provider, modelId }, context) => (await context.session()).handle.setModel(provider, modelId),
});

export const getAvailableThinkingLevels = defineCommand({
	name: "get_available_thinking_levels",
	summary: "Thinking levels the session's model supports, and the current one.",
	params: NoFields,
	result: "`{levels: string[], current}`",
	handler: async (_params, context) => {
		const { handle } = await context.session();
		return { levels: handle.availableThinkingLevels(), current: handle.state().thinkingLevel };
	},
});

export const setThinkingLevel = defineCommand({
	name: "set_thinking_level",
	summary: "Sets the thinking level; it is clamped to what the model supports.",
	params: Type.Object(
		{ level: Type.Union(THINKING_LEVELS.map((l) => Type.Literal(l))) },
		{ additionalProperties: false },
	),
	result: "`{requested, level, clamped}`",
	handler: async ({ level }, context) => {
		const applied = (await context.session()).handle.setThinkingLevel(level);
		return { requested: level, level: applied, clamped: applied !== level };
	},
});

export const modelCommands = [getAvailableModels, setModel, getAvailableThinkingLevels, setThinkingLevel];
