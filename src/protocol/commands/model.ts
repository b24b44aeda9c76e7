/** Model and thinking level of a session. */
import { Type } from "typebox";
import { startCommand } from "../../shared/start-command.js";
import { defineCommand, NoFields } from "../command.js";
import { ModelInfoSchema, ThinkingLevelSchema } from "../schemas/model.js";

export const getAvailableModels = defineCommand({
	name: "get_available_models",
	summary: "Models that have credentials configured (environment, auth.json or models.json).",
	params: NoFields,
	result: Type.Object({
		models: Type.Array(ModelInfoSchema),
		startCommand: Type.Optional(
			Type.String({
				description:
					"How the service was started, as a command to type again with a provider key in front (`npm start` from a checkout, " +
					"`skiff` from the PATH, else `node <script>`): setup help shows it when no model has credentials.",
			}),
		),
	}),
	handler: async (_params, context) => ({ models: (await context.session()).handle.availableModels(), startCommand: startCommand() }),
});

export const setModel = defineCommand({
	name: "set_model",
	summary: "Switches the session's model for its next turns; every client following the session gets `model_changed`.",
	params: Type.Object(
		{ provider: Type.String({ minLength: 1 }), modelId: Type.String({ minLength: 1 }) },
		{ additionalProperties: false },
	),
	result: ModelInfoSchema,
	handler: async ({ provider, modelId }, context) => (await context.session()).handle.setModel(provider, modelId),
});

export const cycleModel = defineCommand({
	name: "cycle_model",
	summary:
		"Switches to the next model that has credentials (in get_available_models order), re-clamping the thinking " +
		"level; `null` when there is no other. Every client following the session gets `model_changed`.",
	params: NoFields,
	result: Type.Union([
		Type.Object({
			model: ModelInfoSchema,
			thinkingLevel: ThinkingLevelSchema,
			isScoped: Type.Boolean({ description: "As in pi (cycling through --models); always false here." }),
		}),
		Type.Null(),
	]),
	handler: async (_params, context) => (await (await context.session()).handle.cycleModel()) ?? null,
});

export const getAvailableThinkingLevels = defineCommand({
	name: "get_available_thinking_levels",
	summary: "Thinking levels the session's model supports, and the current one.",
	params: NoFields,
	result: Type.Object({ levels: Type.Array(ThinkingLevelSchema), current: ThinkingLevelSchema }),
	handler: async (_params, context) => {
		const { handle } = await context.session();
		return { levels: handle.availableThinkingLevels(), current: handle.state().thinkingLevel };
	},
});

export const setThinkingLevel = defineCommand({
	name: "set_thinking_level",
	summary: "Sets the thinking level; it is clamped to what the model supports.",
	params: Type.Object({ level: ThinkingLevelSchema }, { additionalProperties: false }),
	result: Type.Object({
		requested: ThinkingLevelSchema,
		level: ThinkingLevelSchema,
		clamped: Type.Boolean({ description: "The model does not support the requested level; `level` is the one set." }),
	}),
	handler: async ({ level }, context) => {
		const applied = (await context.session()).handle.setThinkingLevel(level);
		return { requested: level, level: applied, clamped: applied !== level };
	},
});

export const cycleThinkingLevel = defineCommand({
	name: "cycle_thinking_level",
	summary: "Moves to the model's next thinking level (after the highest: off); `null` when the model cannot think.",
	params: NoFields,
	result: Type.Union([Type.Object({ level: ThinkingLevelSchema }), Type.Null()]),
	handler: async (_params, context) => {
		const level = (await context.session()).handle.cycleThinkingLevel();
		return level === undefined ? null : { level };
	},
});

export const modelCommands = [getAvailableModels, setModel, cycleModel, getAvailableThinkingLevels, setThinkingLevel, cycleThinkingLevel];
