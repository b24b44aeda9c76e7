/** Context maintenance. */
import { Type } from "typebox";
import { CodedError } from "../../shared/errors.js";
import { defineCommand } from "../command.js";

/** pi's compaction result. */
export const CompactionResultSchema = Type.Object(
	{
		summary: Type.String(),
		firstKeptEntryId: Type.String(),
		tokensBefore: Type.Number(),
		details: Type.Optional(Type.Unknown()),
	},
	{ additionalProperties: true, title: "CompactionResult" },
);

export const compact = defineCommand({
	name: "compact",
	summary: "Summarizes older messages to free context. Waits for the summary (it calls the model).",
	params: Type.Object(
		{ customInstructions: Type.Optional(Type.String({ description: "What the summary should focus on." })) },
		{ additionalProperties: false },
	),
	result: CompactionResultSchema,
	handler: async ({ customInstructions }, context) => {
		const session = await context.session();
		if (session.handle.isBusy) throw new CodedError("busy", "Cannot compact now: a run or another compaction is in progress (wait for it, or abort the run)");
		return session.handle.compact(customInstructions);
	},
});

export const maintenanceCommands = [compact];
