/** Models and thinking levels as clients see them. */
import { Type } from "typebox";
import { THINKING_LEVELS } from "../../agent/types.js";

/** A thinking level, from none to most. */
export const ThinkingLevelSchema = Type.Enum(THINKING_LEVELS, { title: "ThinkingLevel" });

/** pi's model description without request headers (they may hold secrets); more fields may appear. */
export const ModelInfoSchema = Type.Object(
	{
		provider: Type.String(),
		id: Type.String(),
		name: Type.Optional(Type.String()),
		api: Type.Optional(Type.String()),
		reasoning: Type.Optional(Type.Boolean({ description: "The model can think (thinking levels above off)." })),
		contextWindow: Type.Optional(Type.Number()),
		maxTokens: Type.Optional(Type.Number()),
	},
	{ title: "ModelInfo", additionalProperties: true },
);
