/** Session lifecycle: list, create, switch, fork, clone, close, rename. Lifecycle commands return a snapshot. */
import { Type } from "typebox";
import { defineCommand, NoFields } from "../command.js";
import { presentSession } from "../snapshot.js";

const SNAPSHOT = "the backend snapshot `{sessionId, state, messages}` of the target session";

export const sessionList = defineCommand({
	name: "session_list",
	summary: "Recorded sessions of this project (the service's cwd), or of all projects, newest first; loaded ones marked.",
	params: Type.Object(
		{ scope: Type.Optional(Type.Union([Type.Literal("project"), Type.Literal("all")], { description: "Default `project`." })) },
		{ additionalProperties: false },
	),
	result: "`{sessions: [{sessionId, path, cwd, name?, created, modified, messageCount, firstMessage, loaded, primary}]}`",
	handler: async ({ scope }, context) => ({ sessions: await context.runtime.list(scope ?? "project") }),
});

export const newSession = defineCommand({
	name: "new_session",
	summary:
		"Creates and loads a new session (in `cwd`, default the parent's or the service's cwd). It is recorded from its " +
		"first message.",
	params: Type.Object(
		{
			cwd: Type.Optional(Type.String({ minLength: 1, description: "An existing directory." })),
			parentSession: Type.Optional(Type.String({ minLength: 1, description: "Path of the session this one continues." })),
			parentSessionId: Type.Optional(
				Type.String({ minLength: 1, description: "A child of this session: same cwd by default, its live memory configuration." }),
			),
			personaRoot: Type.Optional(Type.String({ minLength: 1, description: "A persona's directory: local memory lives in <personaRoot>/memory/." })),
		},
		{ additionalProperties: false },
	),
	result: SNAPSHOT,
	handler: async (params, context) => {
		return presentSession(context, await context.runtime.create(params));
	},
});

export const switchSession = defineCommand({
	name: "switch_session",
	summary: "Loads a recorded session (by path, id or unique id prefix), or returns it if already loaded.",
	params: Type.Object({ sessionPath: Type.String({ minLength: 1, description: "Path, id or id prefix." }) }, { additionalProperties: false }),
	result: SNAPSHOT,
	handler: async ({ sessionPath }, context) => {
		return presentSession(context, await context.runtime.open(sessionPath));
	},
});

export const fork = defineCommand({
	name: "fork",
	summary:
		"Creates a new session holding the conversation before one of this session's user messages (see " +
		"`get_fork_messages`); that message's text is returned for editing. The source is untouched.",
	params: Type.Object({ entryId: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
	result: `${SNAPSHOT}, plus \`text\`: the user message forked at`,
	handler: async ({ entryId }, context) => {
		const { session, text } = await context.runtime.fork(context.sessionId, entryId);
		return { ...presentSession(context, session), text };
	},
});

export const clone = defineCommand({
	name: "clone",
	summary: "Copies this session's current conversation into a new session. The source is untouched.",
	params: NoFields,
	result: SNAPSHOT,
	handler: async (_params, context) => {
		return presentSession(context, await context.runtime.clone(context.sessionId));
	},
});

export const closeSession = defineCommand({
	name: "close_session",
	summary:
		"Unloads an idle session named by the envelope's `sessionId`; its recording stays on disk for `switch_session`. " +
		"The primary session and busy sessions cannot be closed.",
	params: NoFields,
	result: "`{closed: true, sessionId}`",
	handler: async (_params, context) => {
		if (context.sessionId === undefined) throw new Error("close_session needs the envelope field `sessionId`");
		await context.runtime.close(context.sessionId);
		return { closed: true, sessionId: context.sessionId };
	},
});

export const setSessionName = defineCommand({
	name: "set_session_name",
	summary: "Names the session (shown in lists and by get_state).",
	params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
	result: "`{name}`",
	handler: async ({ name }, context) => {
		const trimmed = name.trim();
		if (!trimmed) throw new Error("Session name cannot be blank");
		(await context.session()).handle.setName(trimmed);
		return { name: trimmed };
	},
});

export const sessionCommands = [sessionList, newSession, switchSession, fork, clone, closeSession, setSessionName];
