/** Control-plane commands of the session goal (for the goal panel, the composer's `/goal` and scripts). */
import { Type } from "typebox";
import { defineCommand, NoFields } from "../../protocol/command.js";
import { GoalEventSchema, GoalViewSchema, MAX_JOURNAL_EVENTS, MAX_OBJECTIVE_BYTES, MAX_PIN_CHARS, MAX_PIN_UNITS, MAX_PINS, MAX_TOKEN_BUDGET } from "./schemas.js";
import type { CommandContext } from "../../protocol/context.js";
import type { ServiceKey } from "../../protocol/service-key.js";
import type { GoalService } from "./service.js";

const Budget = Type.Integer({ minimum: 1, maximum: MAX_TOKEN_BUDGET, description: "Tokens the goal may use (model-reported, all turns while it is active)." });
const Activate = Type.Boolean({ description: "Also start one hidden continuation turn toward the goal (or queue it after the active run)." });

/** A goal mutation's answer: the goal's state after it, and the continuation it started. */
const GoalResultSchema = Type.Object(
	{
		...GoalViewSchema.properties,
		continuation: Type.Optional(
			Type.Enum(["started", "queued"], { description: "With `activate`: the continuation turn started now, or waits for the active run." }),
		),
	},
	{ title: "GoalResult" },
);

const NOT_ALLOWED = "Refused (`conflict`, nothing recorded) when the goal's state does not allow it: see `actions` in goal_get.";

export function goalCommands(goals: ServiceKey<GoalService>) {
	const goalOf = async (context: CommandContext) => context.service(goals).of((await context.session()).id);
	return [
		defineCommand({
			name: "goal_create",
			summary:
				"Sets the session's goal (active): an objective (at most 64 KiB) and an optional token budget. With `activate`, " +
				"also starts one hidden continuation turn toward it. Refused while a goal is active or paused (complete or drop it first).",
			params: Type.Object(
				{
					objective: Type.String({
						minLength: 1,
						maxLength: MAX_OBJECTIVE_BYTES,
						description: "What the session works toward: at most 64 KiB of UTF-8 (`limit` beyond), not blank.",
					}),
					tokenBudget: Type.Optional(Budget),
					activate: Type.Optional(Activate),
				},
				{ additionalProperties: false },
			),
			result: GoalResultSchema,
			handler: async (params, context) => (await goalOf(context)).create(params),
		}),
		defineCommand({
			name: "goal_get",
			summary: "The session's goal on its active branch (absent when none was set), its revision, and the actions its state allows.",
			params: NoFields,
			result: GoalViewSchema,
			handler: async (_params, context) => (await goalOf(context)).view(),
		}),
		defineCommand({
			name: "goal_pause",
			summary: `Pauses the active goal (\`manual\`): no hidden context, no goal tool, no usage charged. ${NOT_ALLOWED}`,
			params: NoFields,
			result: GoalViewSchema,
			handler: async (_params, context) => (await goalOf(context)).pause("manual"),
		}),
		defineCommand({
			name: "goal_resume",
			summary:
				"Resumes a paused goal. After `budget_exhausted` (or whenever the budget is spent) a new `tokenBudget` above the " +
				`tokens used is required. With \`activate\`, also starts one continuation turn. ${NOT_ALLOWED}`,
			params: Type.Object({ tokenBudget: Type.Optional(Budget), activate: Type.Optional(Activate) }, { additionalProperties: false }),
			result: GoalResultSchema,
			handler: async (params, context) => (await goalOf(context)).resume(params),
		}),
		defineCommand({
			name: "goal_complete",
			summary: `Marks the goal completed (terminal). ${NOT_ALLOWED}`,
			params: NoFields,
			result: GoalViewSchema,
			handler: async (_params, context) => (await goalOf(context)).complete(),
		}),
		defineCommand({
			name: "goal_drop",
			summary: `Drops the goal (terminal). ${NOT_ALLOWED}`,
			params: NoFields,
			result: GoalViewSchema,
			handler: async (_params, context) => (await goalOf(context)).drop(),
		}),
		defineCommand({
			name: "goal_pin",
			summary: `Adds a short note to the goal (at most ${MAX_PINS} pins of ${MAX_PIN_CHARS} characters; surrounding whitespace is trimmed). ${NOT_ALLOWED}`,
			params: Type.Object({ text: Type.String({ minLength: 1, maxLength: MAX_PIN_UNITS }) }, { additionalProperties: false }),
			result: GoalViewSchema,
			handler: async ({ text }, context) => (await goalOf(context)).pin(text.trim()),
		}),
		defineCommand({
			name: "goal_unpin",
			summary: `Removes the pin at \`index\` (counted from 0). ${NOT_ALLOWED}`,
			params: Type.Object({ index: Type.Integer({ minimum: 0, maximum: MAX_PINS - 1 }) }, { additionalProperties: false }),
			result: GoalViewSchema,
			handler: async ({ index }, context) => (await goalOf(context)).unpin(index),
		}),
		defineCommand({
			name: "goal_journal",
			summary:
				`The goal journal of the active branch, oldest first (the newest ${MAX_JOURNAL_EVENTS} events): every transition ` +
				"and every usage charge, as recorded. `journalError` says where replay stopped when the journal is damaged.",
			params: NoFields,
			result: Type.Object({
				events: Type.Array(GoalEventSchema),
				total: Type.Integer({ minimum: 0, description: "How many events the branch holds." }),
				journalError: Type.Optional(Type.String({ description: "The journal is damaged: the entry where replay stopped, and why." })),
			}),
			handler: async (_params, context) => (await goalOf(context)).journal(MAX_JOURNAL_EVENTS),
		}),
	];
}
