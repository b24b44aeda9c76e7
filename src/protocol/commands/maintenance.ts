/** Context maintenance. */
import { Type } from "typebox";
import { defineCommand } from "../command.js";

/**
 * Sessions whose compaction was asked for and has not ended. The agent marks a session as compacting only
 * after an await, so without this a second `compact` sent at once would pass the busy check and run beside
 * the first (and fail inside the agent when the first one ends).
 */
const compacting = new WeakSet<object>();

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
		if (compacting.has(session.handle)) throw new Error("A compaction of this session is already running: wait for it to finish");
		if (session.handle.isBusy) throw new Error("Cannot compact during a run: abort it or wait for it to finish");
		compacting.add(session.handle);
		try {
			return await session.handle.compact(customInstructions);
		} finally {
			compacting.delete(session.handle);
		}
	},
});

export const maintenanceCommands = [compact];
