/**
 * The side chat commands, addressed to a main session by the envelope's `sessionId` (the primary without
 * one). A tab's run streams as `side_chat_event`s on that session's stream; changes to its tabs as
 * `side_chat_updated`.
 */
import { Type } from "typebox";
import { defineCommand, NoFields, NoResult } from "../../protocol/command.js";
import {
	EPHEMERAL_NOTE,
	MAX_SIDE_CHATS,
	SideChatListSchema,
	SideChatNameSchema,
	SideChatTabSchema,
	SideChatTranscriptSchema,
	type SideChatTranscript,
} from "./schemas.js";
import type { SideChatService } from "./side-chat-service.js";
import type { ServiceKey } from "../../protocol/service-key.js";

const NameOnly = Type.Object({ name: SideChatNameSchema }, { additionalProperties: false });

export function sideChatCommands(sideChats: ServiceKey<SideChatService>) {
	return [
		defineCommand({
			name: "side_chat_new",
			summary:
				`Opens a side chat tab: a "by the way" agent forked from the session's conversation as it is now, with its model ` +
				`and thinking level, read-only tools (read, grep, find, ls) and peek_main. Held in memory only; at most ` +
				`${MAX_SIDE_CHATS} per session. Emits \`side_chat_updated\`.`,
			params: NameOnly,
			result: SideChatTabSchema,
			handler: async ({ name }, context) => context.service(sideChats).open(await context.session(), name),
		}),
		defineCommand({
			name: "side_chat_list",
			summary: "The session's side chat tabs, and that they are ephemeral (`note` says what that means; a panel shows it).",
			params: NoFields,
			result: SideChatListSchema,
			handler: async (_params, context) => ({
				ephemeral: true as const,
				note: EPHEMERAL_NOTE,
				maxTabs: MAX_SIDE_CHATS,
				tabs: context.service(sideChats).list((await context.session()).id),
			}),
		}),
		defineCommand({
			name: "side_chat_messages",
			summary:
				"A tab's transcript: its own messages (not the history it was forked from), the reply it is streaming, and " +
				"the seq they match, like get_messages for the main transcript.",
			params: NameOnly,
			result: SideChatTranscriptSchema,
			handler: async ({ name }, context) => {
				const session = await context.session();
				const transcript = context.service(sideChats).transcript(session.id, name) as Omit<SideChatTranscript, "name" | "seq">;
				return { name, ...transcript, seq: context.streams.hub(session.id).seq };
			},
		}),
		defineCommand({
			name: "side_chat_prompt",
			summary:
				"Sends a message to a tab. Acknowledged once accepted; the run streams as `side_chat_event`s. Refused (`busy`) " +
				"while the tab is answering.",
			params: Type.Object(
				{ name: SideChatNameSchema, message: Type.String({ minLength: 1, description: "The user's text." }) },
				{ additionalProperties: false },
			),
			result: NoResult,
			handler: async ({ name, message }, context) => context.service(sideChats).prompt((await context.session()).id, name, message),
		}),
		defineCommand({
			name: "side_chat_abort",
			summary: "Stops a tab's run, if any (the partial reply is kept, `stopReason: \"aborted\"`).",
			params: NameOnly,
			result: NoResult,
			handler: async ({ name }, context) => context.service(sideChats).abort((await context.session()).id, name),
		}),
		defineCommand({
			name: "side_chat_close",
			summary: "Closes a tab, stopping its run; its conversation is gone. Emits `side_chat_updated`.",
			params: NameOnly,
			result: NoResult,
			handler: async ({ name }, context) => context.service(sideChats).close((await context.session()).id, name),
		}),
	];
}
