/** Session lifecycle: list, create, switch, fork, clone, close, rename. Lifecycle commands return a snapshot. */
import { Type } from "typebox";
import { CodedError } from "../../shared/errors.js";
import { defineCommand, NoFields } from "../command.js";
import { SessionSnapshotSchema, SessionSummarySchema } from "../schemas/session.js";
import { presentSession } from "../snapshot.js";

/** A lifecycle command's answer: the target session's snapshot, and pi's `cancelled` (always false here). */
const lifecycleFields = {
	...SessionSnapshotSchema.properties,
	cancelled: Type.Literal(false, { description: "As in pi (an extension could cancel there); never true here." }),
};
const LifecycleResult = Type.Object(lifecycleFields);

export const sessionList = defineCommand({
	name: "session_list",
	summary: "Recorded sessions of this project (the service's cwd), or of all projects, newest first; loaded ones marked.",
	params: Type.Object(
		{ scope: Type.Optional(Type.Enum(["project", "all"], { description: "Default `project`." })) },
		{ additionalProperties: false },
	),
	result: Type.Object({ sessions: Type.Array(SessionSummarySchema) }),
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
	result: LifecycleResult,
	handler: async (params, context) => presentSession(context, await context.runtime.create(params)),
});

export const switchSession = defineCommand({
	name: "switch_session",
	summary:
		"Loads a recorded session (by path, id or unique id prefix), or returns it if already loaded. Over /ws and /rpc a " +
		"path must lie in the sessions folder; in `--mode rpc` any session file may be opened, as in pi.",
	params: Type.Object({ sessionPath: Type.String({ minLength: 1, description: "Path, id or id prefix." }) }, { additionalProperties: false }),
	result: LifecycleResult,
	handler: async ({ sessionPath }, context) =>
		presentSession(context, await context.runtime.open(sessionPath, { anywhere: context.client.transport === "stdio" })),
});

export const fork = defineCommand({
	name: "fork",
	summary:
		"Creates a new session holding the conversation before one of this session's user messages (see " +
		"`get_fork_messages`); that message's text is returned for editing. The source is untouched.",
	params: Type.Object({ entryId: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
	result: Type.Object({ ...lifecycleFields, text: Type.String({ description: "The user message forked at, for editing." }) }),
	handler: async ({ entryId }, context) => {
		const { session, text } = await context.runtime.fork(context.sessionId, entryId);
		return { ...presentSession(context, session), text };
	},
});

export const clone = defineCommand({
	name: "clone",
	summary: "Copies this session's current conversation into a new session. The source is untouched.",
	params: NoFields,
	result: LifecycleResult,
	handler: async (_params, context) => presentSession(context, await context.runtime.clone(context.sessionId)),
});

export const closeSession = defineCommand({
	name: "close_session",
	summary:
		"Unloads an idle session named by the envelope's `sessionId`; its recording stays on disk for `switch_session`. " +
		"A recorded session that is not loaded is already closed (success, `wasLoaded: false`). The primary session and " +
		"busy sessions cannot be closed.",
	params: NoFields,
	result: Type.Object({ closed: Type.Literal(true), sessionId: Type.String(), wasLoaded: Type.Boolean() }),
	handler: async (_params, context) => {
		if (context.sessionId === undefined) throw new CodedError("invalid_command", "close_session needs the envelope field `sessionId`");
		const wasLoaded = await context.runtime.close(context.sessionId);
		return { closed: true as const, sessionId: context.sessionId, wasLoaded };
	},
});

export const setSessionName = defineCommand({
	name: "set_session_name",
	summary: "Names the session (shown in lists and by get_state).",
	params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
	result: Type.Object({ name: Type.String() }),
	handler: async ({ name }, context) => {
		const trimmed = name.trim();
		if (!trimmed) throw new CodedError("invalid_command", "Invalid command: `name` cannot be blank");
		(await context.session()).handle.setName(trimmed);
		return { name: trimmed };
	},
});

export const sessionCommands = [sessionList, newSession, switchSession, fork, clone, closeSession, setSessionName];
