/** The session tree: read it, move the conversation to another point of it, label its entries. */
import { Type } from "typebox";
import { CodedError } from "../../shared/errors.js";
import { defineCommand, NoFields, NoResult } from "../command.js";
import { LeafIdSchema, TreeNodeSchema } from "../schemas/tree.js";

/** Longest label, in characters (after trimming). */
export const MAX_LABEL_CHARS = 200;
/** Longest custom instructions for a branch summary. */
export const MAX_SUMMARY_INSTRUCTIONS_CHARS = 4000;

const EntryIdParam = Type.String({ minLength: 1, maxLength: 128, description: "An entry id from get_tree." });

export const getTree = defineCommand({
	name: "get_tree",
	summary:
		"The session's whole conversation tree: every entry of every branch, in the order recorded (a parent before its " +
		"children), with a short redacted preview, and the active leaf. Tool results name the assistant turn they " +
		"belong to (`turnId`) so a panel can fold them. `tree_changed` reports every change after this.",
	params: NoFields,
	result: Type.Object({ nodes: Type.Array(TreeNodeSchema), leafId: LeafIdSchema }),
	handler: async (_params, context) => (await context.session()).handle.tree(),
});

export const navigateTree = defineCommand({
	name: "navigate_tree",
	summary:
		"Moves the conversation to another entry of its tree (pi's tree navigation), in the same session file. At a user " +
		"message the leaf becomes that message's parent and its text is returned as `editorText`, to edit and send " +
		"again; at any other entry the leaf becomes that entry. With `summarize`, a summary of the branch left is " +
		"recorded first (a `branch_summary` entry; it calls the model). Every client following the session gets " +
		"`tree_changed` with `reload: true`: reload get_messages. Refused during a run, a compaction or a shell command " +
		"(`busy`); an unknown entry is `not_found`. `abort` stops a summary under way (nothing changes).",
	params: Type.Object(
		{
			entryId: EntryIdParam,
			summarize: Type.Optional(Type.Boolean({ description: "Record a summary of the branch left (calls the model). Default false." })),
			customInstructions: Type.Optional(
				Type.String({ minLength: 1, maxLength: MAX_SUMMARY_INSTRUCTIONS_CHARS, description: "What the branch summary should focus on (with `summarize`)." }),
			),
		},
		{ additionalProperties: false },
	),
	result: Type.Object({
		leafId: LeafIdSchema,
		changed: Type.Boolean({ description: "False when the entry already was the leaf (nothing happened)." }),
		editorText: Type.Optional(Type.String({ description: "The user message navigated to, for editing and sending again." })),
		summaryEntryId: Type.Optional(Type.String({ description: "The branch summary recorded (with `summarize`)." })),
	}),
	handler: async ({ entryId, summarize, customInstructions }, context) => {
		if (customInstructions !== undefined && !summarize) {
			throw new CodedError("invalid_command", "Invalid command: `customInstructions` is for the branch summary: send it with `summarize: true`");
		}
		return (await context.session()).handle.navigateTree(entryId, { summarize, customInstructions });
	},
});

export const setLabel = defineCommand({
	name: "set_label",
	summary:
		"Labels an entry of the tree (a bookmark shown by get_tree), or clears its label when `label` is absent or blank. " +
		"Recorded as a `label` entry; every client following the session gets `tree_changed`. Refused during a run (`busy`).",
	params: Type.Object(
		{
			entryId: EntryIdParam,
			label: Type.Optional(Type.String({ maxLength: MAX_LABEL_CHARS, description: "The label (trimmed); absent or blank clears it." })),
		},
		{ additionalProperties: false },
	),
	result: Type.Object({
		entryId: Type.String(),
		label: Type.Optional(Type.String({ description: "The label now set; absent when cleared." })),
	}),
	handler: async ({ entryId, label }, context) => {
		const trimmed = label?.trim() || undefined;
		(await context.session()).handle.setLabel(entryId, trimmed);
		return { entryId, ...(trimmed !== undefined ? { label: trimmed } : {}) };
	},
});

export const resend = defineCommand({
	name: "resend",
	summary:
		"Sends one of the session's user messages again on a new branch, in one step: the leaf moves to the message's " +
		"parent (as `navigate_tree` to it does) and a run starts there with `message` (edit and resend), or without it " +
		"with the message's own text and images (regenerate the answer). The branch left stays in the tree. " +
		"Acknowledged once the prompt is recorded, as `prompt` is; the run streams as events, after `tree_changed` " +
		"with `reload: true`. Refused during a run, a compaction, a navigation or a shell command (`busy`: it is never " +
		"queued), for an entry that is not a user message (`invalid_command`) and an unknown one (`not_found`); a " +
		"refusal moves nothing. A prompt refused after the move but before anything is recorded (a text-only model " +
		"given the message's images) moves the leaf back where it was, with another `tree_changed` (`reload: true`).",
	params: Type.Object(
		{
			entryId: Type.String({ minLength: 1, maxLength: 128, description: "A user message's entry id from get_tree." }),
			message: Type.Optional(Type.String({ minLength: 1, description: "The text to send instead of the message's own (then its images are not sent again)." })),
		},
		{ additionalProperties: false },
	),
	result: NoResult,
	handler: async ({ entryId, message }, context) => {
		if (message !== undefined && !message.trim()) throw new CodedError("invalid_command", "Invalid command: `message` is blank: leave it out to send the message's own text again");
		await (await context.session()).handle.resend(entryId, message);
	},
});

export const treeCommands = [getTree, navigateTree, setLabel, resend];
