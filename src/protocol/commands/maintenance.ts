/** Context maintenance. */
import { Type } from "typebox";
import { defineCommand } from "../command.js";

export const compact = defineCommand({
	name: "compact",
	summary: "Summarizes older messages to free context. Waits for the summary (it calls the model).",
	params: Type.Object(
		{ customInstructions: Type.Optional(Type.String({ description: "What the summary should focus on." })) },
		{ additionalProperties: false },
	),
	result: "pi's compaction result `{summary, firstKeptEntryId, tokensBefore, details?}`",
	handler: async ({ customInstructions }, context) => {
		const session = await context.session();
		if (session.handle.isBusy) throw new Error("Cannot compact during a run: abort it or wait for it to finish");
		return session.handle.compact(customInstructions);
	},
});

export const maintenanceCommands = [compact];
