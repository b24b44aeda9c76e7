/** A session's conversation tree as clients see it (get_tree, tree_changed). */
import { Type } from "typebox";
import { TREE_NODE_KINDS } from "../../agent/types.js";

const EntryId = (description: string) => Type.String({ description });

/** One entry of the tree: where it sits, what it is, a short redacted preview. */
export const TreeNodeSchema = Type.Object(
	{
		id: EntryId("The entry's id (what navigate_tree, set_label and fork take)."),
		parentId: Type.Union([Type.String(), Type.Null()], { description: "The entry before it; null at a root." }),
		kind: Type.Enum(TREE_NODE_KINDS, {
			description: "A message's role (user, assistant, toolResult, bashExecution), else pi's entry type; `other` for anything unknown.",
		}),
		preview: Type.String({ description: "One line, at most 160 characters (and `…`), secrets redacted." }),
		timestamp: Type.String({ description: "When it was recorded (ISO 8601)." }),
		label: Type.Optional(Type.String({ description: "The user's label on this entry (set_label)." })),
		hidden: Type.Optional(Type.Boolean({ description: "A custom message hidden from the transcript (`display: false`)." })),
		toolCalls: Type.Optional(
			Type.Array(Type.Object({ id: Type.String(), name: Type.String() }), { description: "An assistant turn's tool calls." }),
		),
		stopReason: Type.Optional(Type.String({ description: "An assistant turn that did not end normally: `aborted` or `error`." })),
		toolCallId: Type.Optional(Type.String({ description: "A tool result: the call it answers." })),
		toolName: Type.Optional(Type.String({ description: "A tool result: the tool." })),
		isError: Type.Optional(Type.Boolean({ description: "A tool result: the tool failed." })),
		turnId: Type.Optional(
			Type.String({ description: "A tool result: the assistant entry whose tool call it answers; a panel folds the result under that turn." }),
		),
		targetId: Type.Optional(Type.String({ description: "A label entry: the entry it labels." })),
	},
	{ title: "TreeNode" },
);

export const LeafIdSchema = Type.Union([Type.String(), Type.Null()], {
	description: "The entry the conversation continues from (the active leaf); null before the first entry.",
});
