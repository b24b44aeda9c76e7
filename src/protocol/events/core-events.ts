/**
 * The events of the agent runtime, as the protocol layer shapes them (event-shape.ts): pi's session events
 * with deltas only, plus the runtime's own (model changes, recording failures, unloading).
 */
import { Type } from "typebox";
import { RUN_STOP_REASONS } from "../../agent/types.js";
import { defineEvent } from "../event.js";
import { BashExecutionMessageSchema, ImageBlockSchema, MessageSchema, TextBlockSchema, ToolCallBlockSchema } from "../schemas/messages.js";
import { ModelInfoSchema, ThinkingLevelSchema } from "../schemas/model.js";
import { SessionStatsSchema } from "../schemas/session.js";
import { LeafIdSchema, TreeNodeSchema } from "../schemas/tree.js";

const ContentIndex = Type.Integer({ minimum: 0, description: "Which block of the assistant message." });
/** Deltas, the most frequent events, leave out `contentIndex` when it is 0. */
const DeltaIndex = Type.Optional(Type.Integer({ minimum: 1, description: "Which block of the assistant message; absent means 0." }));
/** What a collaboration guest gets at a stream's end: the part held back while it streamed (docs/collab.md). */
const HeldBack = Type.Optional(
	Type.String({ description: "Collaboration guests only: the rest of the streamed text, held back until its end so no delta ever held part of a secret (docs/collab.md)." }),
);
const ToolOutput = Type.Object(
	{
		content: Type.Array(Type.Union([TextBlockSchema, ImageBlockSchema])),
		details: Type.Optional(
			Type.Unknown({
				description:
					"The tool's own details: pi's `edit` gives `diff` (numbered lines, `+12 text`); for a `write` inside the working " +
					"directory Skiff adds `diff` (a unified diff against what the file held, cut at 64 KiB: `diffTruncated`), " +
					"`created: true` for a new file, or `diffOmitted` with the reason (docs/features.md, Changes).",
			}),
		),
	},
	{ additionalProperties: true, title: "ToolOutput" },
);

/** The streaming sub-events of `message_update`: a block starts, grows by deltas, ends. */
export const AssistantStreamEventSchema = Type.Union(
	[
		Type.Object({ type: Type.Literal("text_start"), contentIndex: ContentIndex }),
		Type.Object({ type: Type.Literal("text_delta"), contentIndex: DeltaIndex, delta: Type.String() }),
		Type.Object({ type: Type.Literal("text_end"), contentIndex: ContentIndex, content: Type.String({ description: "The block's whole text." }), delta: HeldBack }),
		Type.Object({ type: Type.Literal("thinking_start"), contentIndex: ContentIndex }),
		Type.Object({ type: Type.Literal("thinking_delta"), contentIndex: DeltaIndex, delta: Type.String() }),
		Type.Object({ type: Type.Literal("thinking_end"), contentIndex: ContentIndex, content: Type.String(), delta: HeldBack }),
		Type.Object({
			type: Type.Literal("toolcall_start"),
			contentIndex: ContentIndex,
			id: Type.String({ description: "The tool call's id." }),
			name: Type.String({ description: "The tool's name." }),
		}),
		Type.Object({ type: Type.Literal("toolcall_delta"), contentIndex: DeltaIndex, delta: Type.String({ description: "More of the arguments' JSON text." }) }),
		Type.Object({ type: Type.Literal("toolcall_end"), contentIndex: ContentIndex, toolCall: ToolCallBlockSchema }),
	],
	{ title: "AssistantStreamEvent" },
);

const UnloadReason = Type.Enum(["closed", "evicted", "shutdown", "deleted"]);

/**
 * The events of an agent run, from its start to its end: what a transcript is built from. A side chat tab
 * forwards exactly these; guests get these and a few more.
 */
export const RUN_EVENT_TYPES = [
	"agent_start",
	"run_stopped",
	"agent_end",
	"turn_start",
	"turn_end",
	"message_start",
	"message_update",
	"message_end",
	"tool_execution_start",
	"tool_execution_update",
	"tool_execution_end",
	"auto_retry_start",
	"auto_retry_end",
	"compaction_start",
	"compaction_end",
] as const;

export const coreEvents = [
	defineEvent("agent_start", "A run started (after a `prompt`).", {}),
	defineEvent(
		"run_stopped",
		"The run was stopped at a turn boundary, before another model call, and ends now (`agent_end` follows; its last " +
			"reply is recorded as aborted): `turn_limit`, it took its limit of turns (`session.maxTurnsPerRun` per run, or a " +
			"job's own limit), or `goal_inactive`, the session goal it worked toward stopped being active (its token budget " +
			"was spent, or a command paused, completed or dropped it).",
		{
			reason: Type.Enum(RUN_STOP_REASONS, { description: "A turn limit, or the goal the run worked toward is no longer active." }),
			message: Type.String({ description: "What happened, to show as it is." }),
			turns: Type.Integer({ minimum: 0, description: "Turns the run had taken." }),
			limit: Type.Optional(Type.Integer({ minimum: 1, description: "The limit reached (`turn_limit`)." })),
		},
	),
	defineEvent("agent_end", "The run ended (finished, failed or aborted); the session is idle.", {
		messageCount: Type.Integer({ description: "How many messages the run added (not the transcript's length)." }),
	}),
	defineEvent("turn_start", "One model call and its tool calls begin.", {}),
	defineEvent("turn_end", "That turn ended; its messages were each sent in `message_end`.", {}),
	defineEvent("message_start", "A message begins: a user message, or an assistant reply that will stream.", { message: MessageSchema }),
	defineEvent(
		"message_update",
		"The streaming assistant message grew: one sub-event, deltas only. A delta holds what reached the service within one turn of its event loop, one model token or many: append it, assume no size (see \"Deltas are merged at the source\").",
		{
			assistantMessageEvent: AssistantStreamEventSchema,
		},
	),
	defineEvent("message_end", "A message is complete, as it is recorded.", { message: MessageSchema }),
	defineEvent("tool_execution_start", "A tool call starts running.", {
		toolCallId: Type.String(),
		toolName: Type.String(),
		args: Type.Record(Type.String(), Type.Unknown()),
	}),
	defineEvent(
		"tool_execution_update",
		"A running tool produced output: `outputDelta` (text to append) while the output only grows, else the whole `partialResult` so far.",
		{ toolCallId: Type.String(), toolName: Type.String(), outputDelta: Type.Optional(Type.String()), partialResult: Type.Optional(ToolOutput) },
	),
	defineEvent("tool_execution_end", "A tool call finished.", {
		toolCallId: Type.String(),
		toolName: Type.String(),
		result: ToolOutput,
		isError: Type.Boolean(),
		outputDelta: HeldBack,
	}),
	defineEvent("queue_update", "The steering and follow-up messages waiting to be delivered to the run changed.", {
		steering: Type.Array(Type.String()),
		followUp: Type.Array(Type.String()),
	}),
	defineEvent("compaction_start", "The conversation is being summarized to free context.", {
		reason: Type.Enum(["manual", "threshold", "overflow"]),
	}),
	defineEvent("compaction_end", "Compaction ended (with its result, or aborted, or failed).", {
		reason: Type.Enum(["manual", "threshold", "overflow"]),
		result: Type.Optional(Type.Unknown()),
		aborted: Type.Boolean(),
		willRetry: Type.Boolean(),
		errorMessage: Type.Optional(Type.String()),
	}),
	defineEvent("auto_retry_start", "A failed model call will be retried after a delay.", {
		attempt: Type.Integer(),
		maxAttempts: Type.Integer(),
		delayMs: Type.Number(),
		errorMessage: Type.String(),
	}),
	defineEvent("auto_retry_end", "Retrying ended.", { success: Type.Boolean(), attempt: Type.Integer(), finalError: Type.Optional(Type.String()) }),
	defineEvent("session_info_changed", "The session was renamed.", { name: Type.Optional(Type.String()) }),
	defineEvent("thinking_level_changed", "The thinking level changed.", { level: ThinkingLevelSchema }),
	defineEvent("model_changed", "The session's model changed (`set_model`, `cycle_model`).", { model: ModelInfoSchema }),
	defineEvent("recording_failed", "Writing the session file failed; what was not written is retried with the next write.", {
		code: Type.String({ description: "The system error code (ENOSPC, EROFS, EACCES, ...)." }),
		error: Type.String(),
	}),
	defineEvent("recording_restored", "Writing the session file works again; nothing accepted was lost.", {}),
	defineEvent("bash_execution_start", "A shell command of the user (`bash`) started in the session.", { command: Type.String() }),
	defineEvent("bash_execution_update", "The running shell command printed more: `outputDelta` is the text to append (the first 1 MiB is streamed).", {
		outputDelta: Type.String(),
		capped: Type.Optional(Type.Literal(true, { description: "The streamed output reached 1 MiB: no more updates; the end event has the (tail of the) output." })),
	}),
	defineEvent(
		"bash_execution_end",
		"The shell command ended: `message` is the `bashExecution` message now at the end of the transcript (or, `queued`, " +
			"held back by pi until the next prompt because a run had just started). `error` instead when it could not be run.",
		{
			message: Type.Optional(BashExecutionMessageSchema),
			queued: Type.Boolean(),
			error: Type.Optional(Type.String()),
			outputDelta: HeldBack,
		},
	),
	defineEvent(
		"session_reloaded",
		"The session was loaded again from its file because another program (pi, another Skiff) changed the file: " +
			"reload the transcript and state (get_messages, get_state). `discarded` entries of this session that could " +
			"not be recorded meanwhile are gone; the file is what both programs share.",
		{
			reason: Type.Literal("changed_on_disk"),
			discarded: Type.Integer({ minimum: 0, description: "Entries held in memory but not on disk, dropped by the reload (0 unless the file changed during a run)." }),
		},
	),
	defineEvent(
		"tree_changed",
		"The session's tree changed: entries were appended (`appended`, one event per batch, about one per message during " +
			"a run), the conversation moved to another entry (`navigated`: `reload` is true, reload get_messages), or a " +
			"label was set or cleared (`labelled`). `nodes` are the entries added, as get_tree shows them.",
		{
			reason: Type.Enum(["appended", "navigated", "labelled"]),
			leafId: LeafIdSchema,
			nodes: Type.Array(TreeNodeSchema, { description: "Entries added by this change, in the order recorded." }),
			reload: Type.Boolean({ description: "The transcript changed other than by appending: reload it (get_messages)." }),
			labelled: Type.Optional(
				Type.Object({ entryId: Type.String(), label: Type.Optional(Type.String({ description: "Absent when the label was cleared." })) }),
			),
		},
	),
	defineEvent(
		"session_stats",
		"The session's counts, tokens, cost and context use (as get_session_stats), pushed after a turn, a compaction or " +
			"a navigation when they changed.",
		SessionStatsSchema.properties,
	),
	defineEvent(
		"session_unloaded",
		"The session left memory (closed, evicted for room, or at shutdown: commands load it again; or `deleted`: moved to the trash).",
		{ reason: UnloadReason },
	),
	defineEvent(
		"session_list_changed",
		"A session was moved to the trash or restored from it (session_delete, session_restore), by any client: lists of " +
			"sessions are out of date. Sent to the followers of every loaded session.",
		{
			change: Type.Enum(["deleted", "restored"]),
			changedSessionId: Type.String({ description: "The session deleted or restored (`sessionId` is the session the event travels in)." }),
		},
	),
];
