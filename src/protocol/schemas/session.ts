/** Sessions as clients see them: state, list rows, and the snapshot lifecycle commands return. */
import { type Static, Type } from "typebox";
import type { QueueMode, SessionState, SessionSummary, TrashedSession } from "../../agent/types.js";
import { GOAL_LIFECYCLES, PAUSE_REASONS } from "../../agent/goal-record.js";
import { MessageSchema } from "./messages.js";
import { ModelInfoSchema, ThinkingLevelSchema } from "./model.js";

/** How queued steering or follow-up messages are delivered: all at once, or one per turn. */
export const QueueModeSchema = Type.Enum(["all", "one-at-a-time"], { title: "QueueMode" });

/** What `get_state` reports about one session. */
export const SessionStateSchema = Type.Object(
	{
		sessionId: Type.String(),
		sessionFile: Type.Optional(Type.String({ description: "Where the session is (or will be) recorded; absent for --no-session." })),
		sessionName: Type.Optional(Type.String()),
		cwd: Type.String(),
		model: Type.Optional(ModelInfoSchema),
		thinkingLevel: ThinkingLevelSchema,
		isStreaming: Type.Boolean({ description: "A run is active (from agent_start to agent_end)." }),
		isCompacting: Type.Boolean(),
		steeringMode: QueueModeSchema,
		followUpMode: QueueModeSchema,
		messageCount: Type.Integer({ description: "Messages in the transcript." }),
		pendingMessageCount: Type.Integer({ description: "Steering and follow-up messages queued for the active run." }),
		autoCompactionEnabled: Type.Boolean(),
		autoRetryEnabled: Type.Boolean(),
		persisted: Type.Boolean({ description: "The session file exists on disk (a new session is written with its first message, plan, goal or name)." }),
		parentSession: Type.Optional(Type.String({ description: "The file of the session this one was forked or created from." })),
		recordingError: Type.Optional(Type.String({ description: "Why writing the session file fails, while it keeps failing." })),
		primary: Type.Boolean({ description: "The session chosen at start-up, addressed when a command names none." }),
		lastSeq: Type.Integer({ description: "The seq of the newest event published for this session (0 before the first)." }),
		epoch: Type.String({ description: "The identity of this process's event numbering (see subscribe)." }),
		protocolVersion: Type.Integer({ description: "The control protocol's version (see Versioning)." }),
	},
	{ title: "SessionState" },
);

/**
 * The runtime's types (src/agent/types.ts) are the source of what these schemas describe; the schemas add the
 * wire's descriptions and, to the state, where the session's event stream stands (see wireStateOf). The
 * runtime may not import the protocol, so the compiler checks that each schema and its type agree instead:
 * the same keys, each assignable both ways. A field added, dropped, made optional or retyped on one side
 * only fails to compile here.
 */
type Agree<A, B> = [A] extends [B] ? ([B] extends [A] ? ([Exclude<keyof A, keyof B> | Exclude<keyof B, keyof A>] extends [never] ? true : false) : false) : false;
type Check<T extends true> = T;
/** The fields of get_state's result that the protocol adds to the runtime's SessionState. */
type StreamFields = "lastSeq" | "epoch" | "protocolVersion";
type StateSchemaAgrees = Check<Agree<Omit<Static<typeof SessionStateSchema>, StreamFields>, SessionState>>;
type QueueModeSchemaAgrees = Check<Agree<Static<typeof QueueModeSchema>, QueueMode>>;

/** One row of `session_list`. */
export const SessionSummarySchema = Type.Object(
	{
		sessionId: Type.String(),
		path: Type.String(),
		cwd: Type.String(),
		name: Type.Optional(Type.String()),
		created: Type.String({ description: "ISO 8601." }),
		modified: Type.String({ description: "ISO 8601." }),
		messageCount: Type.Integer({
			description: "The messages a user sees: user and assistant messages (not tool results, bash runs, custom or hidden messages, or other entries).",
		}),
		firstMessage: Type.String(),
		parentSession: Type.Optional(Type.String({ description: "The file of the session this one was forked or cloned from." })),
		kind: Type.String({
			description:
				"What the session is: `user` (a user's own), `fork` (forked or cloned from another, or a user's child of one: a user " +
				"session too), or the kind a feature recorded for a session it made for its own work: `job` (a job's agent), " +
				"`workflow` (a workflow's supervisor or worker). Only `user` and `fork` are listed unless `internal`.",
		}),
		parentSessionId: Type.Optional(Type.String({ description: "The session it was made from or works for (a fork's source, a job's parent), when known." })),
		ownerId: Type.Optional(Type.String({ description: "For an internal session: the feature's id of its work (the job id, the workflow id)." })),
		goal: Type.Optional(
			Type.Object(
				{ lifecycle: Type.Enum(GOAL_LIFECYCLES), pauseReason: Type.Optional(Type.Enum(PAUSE_REASONS)) },
				{
					description:
						"Its session goal as the file's active branch recorded it (the goal's journal), when it has had one: so that a client " +
						"can flag a goal paused while the session was not loaded. Read from the file: for a loaded session `goal_get` " +
						"is current. A session opened again pauses an active goal (`resume_safety`).",
				},
			),
		),
		loaded: Type.Boolean(),
		primary: Type.Boolean(),
		recorded: Type.Boolean({
			description:
				"Something of it is on disk. False for a loaded session that holds nothing yet (such as the fresh session each " +
				"start opens, or --no-session's): a client may leave such a row out unless it shows that session.",
		}),
	},
	{ title: "SessionSummary" },
);
type SummarySchemaAgrees = Check<Agree<Static<typeof SessionSummarySchema>, SessionSummary>>;

/** A session in the trash, restorable (session_delete, session_trash_list, session_restore). */
export const TrashedSessionSchema = Type.Object(
	{
		trashId: Type.String({ description: "Names it for `session_restore`." }),
		sessionId: Type.String(),
		originalPath: Type.String({ description: "Where its file was, and where `session_restore` puts it back." }),
		deletedAt: Type.String({ description: "ISO 8601." }),
		title: Type.String({ description: "Its name, else the first line of its first message, when it was deleted." }),
		cwd: Type.String(),
	},
	{ title: "TrashedSession" },
);
type TrashedSchemaAgrees = Check<Agree<Static<typeof TrashedSessionSchema>, TrashedSession>>;

/** What every lifecycle command answers: the session's state and transcript, read from the session itself. */
export const SessionSnapshotSchema = Type.Object(
	{ sessionId: Type.String(), state: SessionStateSchema, messages: Type.Array(MessageSchema) },
	{ title: "SessionSnapshot" },
);

/** Counts, tokens and cost of a session (pi's session statistics) and how full its context window is. */
export const SessionStatsSchema = Type.Object(
	{
		sessionId: Type.String(),
		sessionFile: Type.Optional(Type.String()),
		userMessages: Type.Integer(),
		assistantMessages: Type.Integer(),
		toolCalls: Type.Integer(),
		toolResults: Type.Integer(),
		totalMessages: Type.Integer(),
		tokens: Type.Object(
			{ input: Type.Number(), output: Type.Number(), cacheRead: Type.Number(), cacheWrite: Type.Number(), total: Type.Number() },
			{ additionalProperties: true },
		),
		cost: Type.Number(),
		contextUsage: Type.Optional(
			Type.Object(
				{
					tokens: Type.Union([Type.Number(), Type.Null()], { description: "Estimated tokens in context; null when unknown (right after compaction)." }),
					contextWindow: Type.Number(),
					percent: Type.Union([Type.Number(), Type.Null()]),
				},
				{ additionalProperties: true },
			),
		),
	},
	{ additionalProperties: true, title: "SessionStats" },
);

/** The messages waiting for a run, as `queue_update` reports them. */
export const QueuedMessagesSchema = Type.Object(
	{
		steering: Type.Array(Type.String(), { description: "Steering messages, oldest first (delivered after the current tool calls)." }),
		followUp: Type.Array(Type.String(), { description: "Follow-up messages, oldest first (sent when the run would end)." }),
	},
	{ title: "QueuedMessages" },
);
