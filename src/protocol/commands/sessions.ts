/** Session lifecycle: list, create, switch, fork, clone, close, rename. Lifecycle commands return a snapshot. */
import { Type } from "typebox";
import { CodedError } from "../../shared/errors.js";
import { defineCommand, NoFields } from "../command.js";
import { SessionSnapshotSchema, SessionSummarySchema, TrashedSessionSchema } from "../schemas/session.js";
import { presentSession } from "../snapshot.js";

/** A lifecycle command's answer: the target session's snapshot, and pi's `cancelled` (always false here). */
const lifecycleFields = {
	...SessionSnapshotSchema.properties,
	cancelled: Type.Literal(false, { description: "As in pi (an extension could cancel there); never true here." }),
};
const LifecycleResult = Type.Object(lifecycleFields);

const Scope = Type.Optional(Type.Enum(["project", "all"], { description: "Default `project`." }));
const Internal = Type.Optional(
	Type.Boolean({ description: "Also sessions features made for their own work (kinds `job`, `workflow`: see `kind`), to nest under their parent. Default false." }),
);

export const sessionList = defineCommand({
	name: "session_list",
	summary:
		"Recorded sessions of this project (the service's cwd), or of all projects, newest first, and loaded sessions not yet " +
		"recorded; loaded ones marked. A user's sessions only (kinds `user` and `fork`) unless `internal`.",
	params: Type.Object({ scope: Scope, internal: Internal }, { additionalProperties: false }),
	result: Type.Object({ sessions: Type.Array(SessionSummarySchema) }),
	handler: async ({ scope, internal }, context) => ({ sessions: await context.runtime.list(scope ?? "project", { internal }) }),
});

/** Hits a search returns when the request names no limit, and at most. */
export const SEARCH_DEFAULT_LIMIT = 50;
export const SEARCH_MAX_LIMIT = 200;
/** The longest search text. */
export const SEARCH_QUERY_MAX_CHARS = 200;

export const sessionSearch = defineCommand({
	name: "session_search",
	summary:
		"Recorded sessions whose title (name, else first message) or message text (user and assistant messages) contains " +
		"`query`, plain text in any case (no patterns), newest first, each with a snippet around its first hit. Files are " +
		"read line by line between other requests; it answers with what it found (`truncated`) at `limit` hits or after " +
		"10 s.",
	params: Type.Object(
		{
			query: Type.String({ minLength: 1, maxLength: SEARCH_QUERY_MAX_CHARS, description: "Text to find (case-insensitive)." }),
			scope: Scope,
			limit: Type.Optional(Type.Integer({ minimum: 1, maximum: SEARCH_MAX_LIMIT, description: `Most hits returned. Default ${SEARCH_DEFAULT_LIMIT}.` })),
			internal: Internal,
		},
		{ additionalProperties: false },
	),
	result: Type.Object({
		hits: Type.Array(
			Type.Object({
				session: Type.Omit(SessionSummarySchema, ["loaded", "primary", "recorded"]),
				matchedIn: Type.Enum(["title", "message"], { description: "Where the first hit is." }),
				snippet: Type.String({ description: "The first hit with up to 60 characters either side, on one line (… where cut)." }),
			}),
		),
		scanned: Type.Integer({ description: "Session files read." }),
		truncated: Type.Boolean({ description: "It stopped before reading every file (the limit of hits or of time)." }),
	}),
	handler: async ({ query, scope, limit, internal }, context) => {
		if (!query.trim()) throw new CodedError("invalid_command", "Invalid command: `query` cannot be blank");
		return context.runtime.search(query.trim(), scope ?? "project", limit ?? SEARCH_DEFAULT_LIMIT, { internal });
	},
});

export const sessionDelete = defineCommand({
	name: "session_delete",
	summary:
		"Moves the recorded session named by the envelope's `sessionId` to the trash (`<agent-dir>/trash/sessions/`), never " +
		"deleting it, and unloads it if loaded; answers once the move is on disk. Refuses the primary session, a busy one, " +
		"and one with nothing recorded yet. `session_restore` puts it back. Every loaded session's followers get " +
		"`session_list_changed`.",
	params: Type.Object(
		{ confirm: Type.Literal(true, { description: "Must be true: the client asked the user." }) },
		{ additionalProperties: false },
	),
	result: TrashedSessionSchema,
	handler: async (_params, context) => {
		if (context.sessionId === undefined) throw new CodedError("invalid_command", "session_delete needs the envelope field `sessionId`");
		return context.runtime.delete(context.sessionId);
	},
});

export const sessionTrashList = defineCommand({
	name: "session_trash_list",
	summary: "The sessions in the trash, newest first.",
	params: NoFields,
	result: Type.Object({ sessions: Type.Array(TrashedSessionSchema) }),
	handler: async (_params, context) => ({ sessions: await context.runtime.trashList() }),
});

export const sessionRestore = defineCommand({
	name: "session_restore",
	summary:
		"Puts a trashed session back where it was; answers once it is there on disk. Refused (`conflict`) when a file is at " +
		"its original path now (the trash keeps it). Every loaded session's followers get `session_list_changed`.",
	params: Type.Object({ trashId: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false }),
	result: TrashedSessionSchema,
	handler: async ({ trashId }, context) => context.runtime.restore(trashId),
});

/** The longest `cwd` a new session accepts (Linux's PATH_MAX). */
export const CWD_MAX_CHARS = 4096;

export const newSession = defineCommand({
	name: "new_session",
	summary:
		"Creates and loads a new session (in `cwd`, default the parent's or the service's cwd). It is recorded from its " +
		"first message.",
	params: Type.Object(
		{
			cwd: Type.Optional(
				Type.String({
					minLength: 1,
					maxLength: CWD_MAX_CHARS,
					description: "An existing, readable directory (relative: to the service's cwd); else `invalid_command` saying what it is instead.",
				}),
			),
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

export const sessionCommands = [
	sessionList,
	sessionSearch,
	newSession,
	switchSession,
	fork,
	clone,
	closeSession,
	sessionDelete,
	sessionTrashList,
	sessionRestore,
	setSessionName,
];
