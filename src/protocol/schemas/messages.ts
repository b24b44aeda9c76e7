/**
 * Transcript messages as pi records them (its v3 session format), described as far as clients rely on them.
 * Every object allows more fields: pi adds some from version to version.
 */
import { Type } from "typebox";

const open = { additionalProperties: true } as const;

export const TextBlockSchema = Type.Object({ type: Type.Literal("text"), text: Type.String() }, { ...open, title: "TextBlock" });
export const ThinkingBlockSchema = Type.Object(
	{ type: Type.Literal("thinking"), thinking: Type.String(), redacted: Type.Optional(Type.Boolean()) },
	{ ...open, title: "ThinkingBlock" },
);
export const ImageBlockSchema = Type.Object(
	{
		type: Type.Literal("image"),
		data: Type.String({ description: "Base64; empty when `omittedBytes` is set." }),
		mimeType: Type.String(),
		omittedBytes: Type.Optional(
			Type.Integer({ minimum: 0, description: "Set on the wire when the image's data was left out of this event or transcript (its size in bytes): the session keeps it and the model got it (docs/protocol.md, \"Images on the wire\")." }),
		),
	},
	{ ...open, title: "ImageBlock" },
);
export const ToolCallBlockSchema = Type.Object(
	{ type: Type.Literal("toolCall"), id: Type.String(), name: Type.String(), arguments: Type.Record(Type.String(), Type.Unknown()) },
	{ ...open, title: "ToolCallBlock" },
);

const UserContent = Type.Union([Type.String(), Type.Array(Type.Union([TextBlockSchema, ImageBlockSchema]))]);

export const UserMessageSchema = Type.Object(
	{ role: Type.Literal("user"), content: UserContent, timestamp: Type.Number() },
	{ ...open, title: "UserMessage" },
);

/** Token counts and cost of one model call. */
export const UsageSchema = Type.Object(
	{
		input: Type.Number(),
		output: Type.Number(),
		cacheRead: Type.Number(),
		cacheWrite: Type.Number(),
		totalTokens: Type.Number(),
		cost: Type.Object({ total: Type.Number() }, open),
	},
	{ ...open, title: "Usage" },
);

export const AssistantMessageSchema = Type.Object(
	{
		role: Type.Literal("assistant"),
		content: Type.Array(Type.Union([TextBlockSchema, ThinkingBlockSchema, ToolCallBlockSchema])),
		provider: Type.String(),
		model: Type.String(),
		usage: UsageSchema,
		stopReason: Type.Enum(["stop", "length", "toolUse", "error", "aborted"], {
			description: "Why the reply ended: `aborted` when stopped by `abort`, `error` with `errorMessage`.",
		}),
		errorMessage: Type.Optional(Type.String()),
		timestamp: Type.Number(),
	},
	{ ...open, title: "AssistantMessage" },
);

export const ToolResultMessageSchema = Type.Object(
	{
		role: Type.Literal("toolResult"),
		toolCallId: Type.String(),
		toolName: Type.String(),
		content: Type.Array(Type.Union([TextBlockSchema, ImageBlockSchema])),
		isError: Type.Boolean(),
		timestamp: Type.Number(),
	},
	{ ...open, title: "ToolResultMessage" },
);

/** Context added by the service or a feature; `display: false` hides it from transcripts (it still reaches the model). */
export const CustomMessageSchema = Type.Object(
	{
		role: Type.Literal("custom"),
		customType: Type.String(),
		content: Type.Union([Type.String(), Type.Array(Type.Union([TextBlockSchema, ImageBlockSchema]))]),
		display: Type.Boolean(),
		timestamp: Type.Number(),
	},
	{ ...open, title: "CustomMessage" },
);

/** A shell command the user ran with `bash`, and its output. */
export const BashExecutionMessageSchema = Type.Object(
	{
		role: Type.Literal("bashExecution"),
		command: Type.String(),
		output: Type.String(),
		exitCode: Type.Optional(Type.Number()),
		cancelled: Type.Boolean(),
		truncated: Type.Boolean(),
		timestamp: Type.Number(),
	},
	{ ...open, title: "BashExecutionMessage" },
);

export const CompactionSummaryMessageSchema = Type.Object(
	{ role: Type.Literal("compactionSummary"), summary: Type.String(), tokensBefore: Type.Number(), timestamp: Type.Number() },
	{ ...open, title: "CompactionSummaryMessage" },
);

export const BranchSummaryMessageSchema = Type.Object(
	{ role: Type.Literal("branchSummary"), summary: Type.String(), fromId: Type.String(), timestamp: Type.Number() },
	{ ...open, title: "BranchSummaryMessage" },
);

/** Any message of a transcript, told apart by `role`. */
export const MessageSchema = Type.Union(
	[
		UserMessageSchema,
		AssistantMessageSchema,
		ToolResultMessageSchema,
		CustomMessageSchema,
		BashExecutionMessageSchema,
		CompactionSummaryMessageSchema,
		BranchSummaryMessageSchema,
	],
	{ title: "Message" },
);
