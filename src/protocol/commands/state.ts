/** Reading a session: state, transcript, statistics, commands. */
import { defineCommand, NoFields } from "../command.js";
import { wireStateOf } from "../snapshot.js";


export const getState = defineCommand({
	name: "get_state",
	summary: "The session's state: name, model, thinking level, whether a run is active, and its event position.",
	params: NoFields,
	result:
		"`{sessionId, sessionFile?, sessionName?, cwd, model?, thinkingLevel, isStreaming, isCompacting, messageCount, " +
		"pendingMessageCount, autoCompactionEnabled, primary, persisted, lastSeq, epoch}`",
	handler: async (_params, context) => wireStateOf(context, await context.session()),
});

export const getMessages = defineCommand({
	name: "get_messages",
	summary:
		"The committed transcript (pi message objects; `display: false` markers kept), the assistant message being " +
		"streamed if a run is active, and the seq they match.",
	params: NoFields,
	result: "`{messages, streaming?, seq}`: events with a larger seq come after this transcript",
	handler: async (_params, context) => {
		const session = await context.session();
		return { messages: session.handle.messages(), streaming: session.handle.streamingMessage(), seq: context.streams.hub(session.id).seq };
	},
});

export const getSessionStats = defineCommand({
	name: "get_session_stats",
	summary: "Message and token counts of the session, and context usage.",
	params: NoFields,
	result: "`{sessionId, sessionFile?, userMessages, assistantMessages, toolCalls, toolResults, totalMessages, tokens, cost, contextUsage?}`",
	handler: async (_params, context) => (await context.session()).handle.stats(),
});

export const getCommands = defineCommand({
	name: "get_commands",
	summary: "Slash commands available in prompts: prompt templates and skills.",
	params: NoFields,
	result: "`{commands: [{name, description, source}]}`",
	handler: async (_params, context) => ({ commands: (await context.session()).handle.commands() }),
});

export const getForkMessages = defineCommand({
	name: "get_fork_messages",
	summary: "The user messages a `fork` can start before.",
	params: NoFields,
	result: "`{messages: [{entryId, text}]}`",
	handler: async (_params, context) => ({ messages: (await context.session()).handle.forkPoints() }),
});

export const stateCommands = [getState, getMessages, getSessionStats, getCommands, getForkMessages];
