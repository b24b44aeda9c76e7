/**
 * The session goal's schemas: the goal, its journal (what is recorded, one event per transition) and what
 * clients see. The limits live here, beside the schemas that state them.
 */
import { type Static, Type } from "typebox";
import { GOAL_LIFECYCLES, PAUSE_REASONS } from "../../agent/goal-record.js";

/** Longest objective (UTF-8 bytes), most pins, longest pin (characters), largest token budget. */
export const MAX_OBJECTIVE_BYTES = 64 * 1024;
export const MAX_PINS = 8;
export const MAX_PIN_CHARS = 200;
/**
 * The schema's bound on a pin, in UTF-16 code units (what JSON Schema's maxLength counts here): two per character
 * at most, so no pin of 200 characters is refused by it; the goal itself counts characters and says so.
 */
export const MAX_PIN_UNITS = MAX_PIN_CHARS * 2;
export const MAX_TOKEN_BUDGET = 1_000_000_000_000;
/** `goal_journal` answers at most this many events (the newest). */
export const MAX_JOURNAL_EVENTS = 1000;

export const GoalLifecycleSchema = Type.Enum(GOAL_LIFECYCLES, { description: "`active`, `paused`, or the terminal `completed` and `dropped`." });
export type GoalLifecycle = Static<typeof GoalLifecycleSchema>;

export const PauseReasonSchema = Type.Enum(PAUSE_REASONS, {
	description: "`manual` (a command or the agent), `budget_exhausted` (the token budget is spent), `resume_safety` (the session was opened again).",
});
export type PauseReason = Static<typeof PauseReasonSchema>;

/** Who paused a goal by hand: the user (a command) or the agent (its `goal` tool); absent in journals written before it was kept. */
export const GoalActorSchema = Type.Enum(["user", "agent"], { description: "Who paused it by hand: `user` (a command) or `agent` (the goal tool)." });
export type GoalActor = Static<typeof GoalActorSchema>;

const Tokens = Type.Integer({ minimum: 0, description: "Tokens the model reported." });
const WallTime = Type.Integer({ minimum: 0, description: "Wall time of the turns, in milliseconds." });
const Budget = Type.Integer({ minimum: 1, maximum: MAX_TOKEN_BUDGET, description: "Tokens the goal may use." });
const Objective = Type.String({ minLength: 1, maxLength: MAX_OBJECTIVE_BYTES, description: "What the session works toward (at most 64 KiB)." });
const PinText = Type.String({ minLength: 1, maxLength: MAX_PIN_UNITS, description: `A short note kept with the goal (at most ${MAX_PIN_CHARS} characters).` });
const GoalId = Type.String({ pattern: "^goal-[A-Za-z0-9]{1,32}$" });

export const GoalUsageSchema = Type.Object({ tokens: Tokens, wallTimeMs: WallTime }, { additionalProperties: false, title: "GoalUsage" });
export type GoalUsage = Static<typeof GoalUsageSchema>;

export const GoalSchema = Type.Object(
	{
		id: GoalId,
		objective: Type.String(),
		tokenBudget: Type.Optional(Budget),
		pins: Type.Array(Type.String(), { maxItems: MAX_PINS }),
		lifecycle: GoalLifecycleSchema,
		pauseReason: Type.Optional(PauseReasonSchema),
		pausedBy: Type.Optional(GoalActorSchema),
		createdAt: Type.String({ description: "ISO 8601." }),
		updatedAt: Type.String({ description: "ISO 8601: the last transition or usage." }),
		usage: GoalUsageSchema,
	},
	{ additionalProperties: false, title: "Goal" },
);
export type Goal = Static<typeof GoalSchema>;

/** One transition of the journal. */
export const GoalChangeSchema = Type.Union(
	[
		Type.Object({ kind: Type.Literal("created"), id: GoalId, objective: Objective, tokenBudget: Type.Optional(Budget) }, { additionalProperties: false }),
		Type.Object({ kind: Type.Literal("paused"), reason: PauseReasonSchema, by: Type.Optional(GoalActorSchema) }, { additionalProperties: false }),
		Type.Object({ kind: Type.Literal("resumed"), tokenBudget: Type.Optional(Budget) }, { additionalProperties: false }),
		Type.Object({ kind: Type.Literal("completed") }, { additionalProperties: false }),
		Type.Object({ kind: Type.Literal("dropped") }, { additionalProperties: false }),
		Type.Object({ kind: Type.Literal("pinned"), text: PinText }, { additionalProperties: false }),
		Type.Object({ kind: Type.Literal("unpinned"), index: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
		Type.Object({ kind: Type.Literal("usage"), tokens: Tokens, wallTimeMs: WallTime }, { additionalProperties: false }),
	],
	{ title: "GoalChange" },
);
export type GoalChange = Static<typeof GoalChangeSchema>;
export type GoalChangeKind = GoalChange["kind"];

export const GoalEventSchema = Type.Object(
	{
		revision: Type.Integer({ minimum: 1, description: "1 for the branch's first event, then one more each." }),
		at: Type.String({ description: "When it happened (ISO 8601)." }),
		change: GoalChangeSchema,
	},
	{ additionalProperties: false, title: "GoalEvent" },
);
export type GoalEvent = Static<typeof GoalEventSchema>;

export const GOAL_ACTIONS = ["create", "pause", "resume", "complete", "drop", "pin", "unpin"] as const;
export type GoalAction = (typeof GOAL_ACTIONS)[number];

/** The goal as clients see it (goal_get, goal_updated). */
export const GoalViewSchema = Type.Object(
	{
		goal: Type.Optional(GoalSchema),
		revision: Type.Integer({ minimum: 0, description: "How many journal events the active branch holds." }),
		actions: Type.Array(Type.Enum(GOAL_ACTIONS), {
			description: "The commands the goal's state allows now (`resume` needing a new `tokenBudget` when the budget is spent).",
		}),
		journalError: Type.Optional(
			Type.String({ description: "The journal on this branch is damaged: where and why. The goal is then inert and every change is refused." }),
		),
	},
	{ additionalProperties: false, title: "GoalView" },
);
export type GoalView = Static<typeof GoalViewSchema>;
