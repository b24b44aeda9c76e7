/** Reading a session: state, transcript, statistics, commands. */
import { Type } from "typebox";
import { defineCommand, NoFields } from "../command.js";
import { MessageSchema } from "../schemas/messages.js";
import { SessionStateSchema, SessionStatsSchema } from "../schemas/session.js";
import { messagesOf, streamingOf, wireStateOf } from "../snapshot.js";

export const getState = defineCommand({
	name: "get_state",
	summary: "The session's state: name, model, thinking level, whether a run is active, and its event position.",
	params: NoFields,
	result: SessionStateSchema,
	handler: async (_params, context) => wireStateOf(context, await context.session()),
});

export const getMessages = defineCommand({
	name: "get_messages",
	summary:
		"The committed transcript (pi message objects; `display: false` markers kept), the assistant message being " +
		"streamed if a run is active, and the seq they match: events with a larger seq come after this transcript.",
	params: Type.Object({
		last: Type.Optional(
			Type.Integer({
				minimum: 1,
				description:
					"Only the newest `last` messages (default: all), e.g. to show the end of a long session before asking for the rest; `total` says how many there are.",
			}),
		),
	}),
	result: Type.Object({
		messages: Type.Array(MessageSchema),
		streaming: Type.Optional(MessageSchema),
		seq: Type.Integer({ description: "The seq this transcript matches." }),
		total: Type.Integer({ minimum: 0, description: "How many messages the transcript has: more than `messages` holds when `last` left the oldest out." }),
	}),
	handler: async (params, context) => {
		const session = await context.session();
		const all = messagesOf(session);
		const messages = params.last === undefined || params.last >= all.length ? all : all.slice(all.length - params.last);
		return { messages, streaming: streamingOf(session), seq: context.streams.hub(session.id).seq, total: all.length };
	},
});

export const getSessionStats = defineCommand({
	name: "get_session_stats",
	summary:
		"Message and token counts of the session, its cost, and how full the context window is. The same figures are " +
		"pushed as `session_stats` after every turn and compaction.",
	params: NoFields,
	result: SessionStatsSchema,
	handler: async (_params, context) => (await context.session()).handle.stats(),
});

export const getCommands = defineCommand({
	name: "get_commands",
	summary: "Slash commands available in prompts: prompt templates and skills.",
	params: NoFields,
	result: Type.Object({
		commands: Type.Array(
			Type.Object({
				name: Type.String(),
				description: Type.Optional(Type.String()),
				source: Type.Enum(["extension", "prompt", "skill"]),
			}),
		),
	}),
	handler: async (_params, context) => ({ commands: (await context.session()).handle.commands() }),
});

export const getForkMessages = defineCommand({
	name: "get_fork_messages",
	summary: "The user messages a `fork` can start before.",
	params: NoFields,
	result: Type.Object({ messages: Type.Array(Type.Object({ entryId: Type.String(), text: Type.String() })) }),
	handler: async (_params, context) => ({ messages: (await context.session()).handle.forkPoints() }),
});

export const getLastAssistantText = defineCommand({
	name: "get_last_assistant_text",
	summary: "The text blocks of the newest assistant reply (an aborted reply without content is skipped); `null` when there is none.",
	params: NoFields,
	result: Type.Object({ text: Type.Union([Type.String(), Type.Null()]) }),
	handler: async (_params, context) => ({ text: (await context.session()).handle.lastAssistantText() ?? null }),
});

export const stateCommands = [getState, getMessages, getSessionStats, getCommands, getForkMessages, getLastAssistantText];
