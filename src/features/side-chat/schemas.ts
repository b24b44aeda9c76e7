/** The side chat's limits and the shapes its commands and events carry. */
import { type Static, Type } from "typebox";
import { MessageSchema } from "../../protocol/schemas/messages.js";
import { ThinkingLevelSchema } from "../../protocol/schemas/model.js";

/** Most side chats open at once in one session. */
export const MAX_SIDE_CHATS = 8;
/** What a tab may be called: 1 to 32 letters, digits or underscores. */
export const SIDE_CHAT_NAME_PATTERN = "^[A-Za-z0-9_]{1,32}$";

/** What side_chat_list says about the tabs' lifetime (the panel shows it). */
export const EPHEMERAL_NOTE =
	"Side chats live in memory only: nothing they say is written to the session file, and they are lost when the " +
	"session unloads (closed, evicted for room) or the service restarts.";

export const SideChatNameSchema = Type.String({
	pattern: SIDE_CHAT_NAME_PATTERN,
	description: "The tab's name: 1 to 32 letters, digits or underscores.",
});

export const SideChatTabSchema = Type.Object(
	{
		name: Type.String(),
		streaming: Type.Boolean({ description: "A run is active in the tab (a prompt is refused with `busy`)." }),
		messageCount: Type.Integer({ minimum: 0, description: "Messages of the tab itself (the history it was forked from is the session's)." }),
		created: Type.String({ description: "When the tab was opened (ISO 8601)." }),
		model: Type.Optional(Type.String({ description: "`provider/id`: the session's model when the tab was opened." })),
		thinkingLevel: ThinkingLevelSchema,
	},
	{ title: "SideChatTab" },
);
export type SideChatTab = Static<typeof SideChatTabSchema>;

export const SideChatListSchema = Type.Object({
	ephemeral: Type.Literal(true, { description: "Tabs are never recorded: see `note`." }),
	note: Type.String({ description: "What happens to the tabs, in a sentence a panel can show." }),
	maxTabs: Type.Integer({ description: "How many tabs a session may hold at once." }),
	tabs: Type.Array(SideChatTabSchema, { description: "Open tabs, oldest first." }),
});
export type SideChatList = Static<typeof SideChatListSchema>;

export const SideChatTranscriptSchema = Type.Object({
	name: Type.String(),
	messages: Type.Array(MessageSchema, { description: "The tab's own messages, oldest first (not the forked history)." }),
	streaming: Type.Optional(MessageSchema),
	running: Type.Boolean({ description: "A run is active in the tab." }),
	seq: Type.Integer({ description: "The session's seq this transcript matches: apply `side_chat_event`s with a larger seq." }),
});
export type SideChatTranscript = Static<typeof SideChatTranscriptSchema>;
