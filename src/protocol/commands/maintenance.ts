/** Context maintenance: compaction, the queue of waiting messages, pruning old session files. */
import { Type } from "typebox";
import { CodedError } from "../../shared/errors.js";
import { defineCommand, NoFields } from "../command.js";
import { QueuedMessagesSchema } from "../schemas/session.js";

/** pi's compaction result, with Skiff's estimate of the context after it. */
export const CompactionResultSchema = Type.Object(
	{
		summary: Type.String(),
		firstKeptEntryId: Type.String(),
		tokensBefore: Type.Number({ description: "Tokens in context before compacting (pi's count)." }),
		tokensAfter: Type.Union([Type.Number(), Type.Null()], {
			description: "Tokens in context after compacting: pi's estimate from the messages the model now sees (null when unknown).",
		}),
		details: Type.Optional(Type.Unknown()),
	},
	{ additionalProperties: true, title: "CompactionResult" },
);

export const compact = defineCommand({
	name: "compact",
	summary:
		"Summarizes older messages to free context. Waits for the summary (it calls the model) and reports the context " +
		"before and after (`tokensBefore` → `tokensAfter`).",
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

export const queueList = defineCommand({
	name: "queue_list",
	summary: "The steering and follow-up messages waiting to be delivered to the active run (`queue_update` reports every change).",
	params: NoFields,
	result: QueuedMessagesSchema,
	handler: async (_params, context) => (await context.session()).handle.queuedMessages(),
});

export const queueCancel = defineCommand({
	name: "queue_cancel",
	summary:
		"Removes one waiting message before it is delivered: the `index`-th (from 0, as queue_list and queue_update " +
		"list them) of the `steering` or `followUp` queue. The others stay as they were. Answers with the text removed " +
		"(for the composer) and what still waits; `queue_update` goes to every client following the session. A " +
		"message the agent is already taking is a `conflict`; an index past the end is `not_found`.",
	params: Type.Object(
		{
			kind: Type.Enum(["steering", "followUp"], { description: "Which queue." }),
			index: Type.Integer({ minimum: 0, description: "Position in that queue, from 0." }),
		},
		{ additionalProperties: false },
	),
	result: Type.Object({ removed: Type.String({ description: "The text of the message removed." }), queue: QueuedMessagesSchema }),
	handler: async ({ kind, index }, context) => {
		const { handle } = await context.session();
		const removed = handle.cancelQueued(kind, index);
		return { removed, queue: handle.queuedMessages() };
	},
});

/** The longest age `sessions_prune` takes (a century). */
export const MAX_PRUNE_DAYS = 36_500;

const PrunedFileSchema = Type.Object({
	sessionId: Type.String(),
	path: Type.String(),
	modified: Type.String({ description: "Last modified (ISO 8601)." }),
	size: Type.Integer({ description: "Bytes." }),
});

export const sessionsPrune = defineCommand({
	name: "sessions_prune",
	summary:
		"Lists (`dryRun`, the default) or deletes recorded session files not modified for more than `olderThanDays` " +
		"days, in every project. Only regular files in the sessions folder's own layout " +
		"(`<agent-dir>/sessions/--<cwd>--/*.jsonl` with a session header) qualify: never a loaded session, never a " +
		"symbolic link or anything in a linked folder, never a file outside that folder. Each file is checked again " +
		"just before it is deleted.",
	params: Type.Object(
		{
			olderThanDays: Type.Number({ description: "Age in days (fractions allowed), greater than 0." }),
			dryRun: Type.Optional(Type.Boolean({ description: "Only list what would be removed. Default true: send false to delete." })),
		},
		{ additionalProperties: false },
	),
	result: Type.Object({
		dryRun: Type.Boolean(),
		cutoff: Type.String({ description: "Files last modified before this moment qualify (ISO 8601)." }),
		sessions: Type.Array(PrunedFileSchema, { description: "Removed, or with a dry run to be removed; oldest first." }),
		totalBytes: Type.Integer(),
		failed: Type.Array(Type.Object({ path: Type.String(), error: Type.String() }), { description: "Files that qualified but could not be removed." }),
	}),
	handler: async ({ olderThanDays, dryRun }, context) => {
		if (!(olderThanDays > 0) || olderThanDays > MAX_PRUNE_DAYS) {
			throw new CodedError(
				"invalid_command",
				`Invalid command: \`olderThanDays\` must be a number of days greater than 0 and at most ${MAX_PRUNE_DAYS} (got ${olderThanDays}); nothing was removed`,
			);
		}
		const dry = dryRun ?? true;
		const report = await context.runtime.prune(olderThanDays, dry);
		const sessions = report.files.map((f) => ({ sessionId: f.id, path: f.path, modified: new Date(f.modifiedMs).toISOString(), size: f.size }));
		return {
			dryRun: dry,
			cutoff: new Date(report.cutoffMs).toISOString(),
			sessions,
			totalBytes: sessions.reduce((sum, f) => sum + f.size, 0),
			failed: report.failed.map(({ file, error }) => ({ path: file.path, error })),
		};
	},
});

export const maintenanceCommands = [compact, queueList, queueCancel, sessionsPrune];
