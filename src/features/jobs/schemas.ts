/** The shapes the jobs feature's tool, commands and events carry, and its limits. */
import { type Static, Type } from "typebox";
import { ThinkingLevelSchema } from "../../protocol/schemas/model.js";
import { AGENT_NAME_PATTERN } from "./definitions.js";

/** Most tasks in one batch. */
export const MAX_BATCH_TASKS = 16;
/** Longest task text, and longest shared context of a batch. */
export const MAX_TASK_CHARS = 64 * 1024;
/** Characters of a job's output shown in its summary (the whole output: job_output). */
export const OUTPUT_PREVIEW_CHARS = 200;

export const JOB_STATUSES = ["queued", "running", "completed", "failed", "cancelled", "interrupted"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
/** Statuses a job never leaves. */
export const FINISHED_STATUSES: ReadonlySet<JobStatus> = new Set(["completed", "failed", "cancelled", "interrupted"]);

const AgentNameSchema = Type.String({ pattern: AGENT_NAME_PATTERN, description: "An agent of the catalog (job_list `agents`), or a persona." });

export const TaskItemSchema = Type.Object(
	{
		task: Type.String({ minLength: 1, maxLength: MAX_TASK_CHARS, description: "What the agent is to do." }),
		agent: Type.Optional(AgentNameSchema),
		description: Type.Optional(Type.String({ maxLength: 200, description: "A short label for lists." })),
	},
	{ additionalProperties: false, title: "TaskItem" },
);

/** One task (`task`) or a batch (`tasks`, with an optional shared `context`): the `task` tool's and task_spawn's fields. */
export const TaskArgsProperties = {
	task: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_TASK_CHARS, description: "One task (or use `tasks`)." })),
	agent: Type.Optional(AgentNameSchema),
	description: Type.Optional(Type.String({ maxLength: 200, description: "A short label for lists (one task)." })),
	context: Type.Optional(Type.String({ maxLength: MAX_TASK_CHARS, description: "Shared context given to every task of the batch." })),
	tasks: Type.Optional(Type.Array(TaskItemSchema, { minItems: 1, maxItems: MAX_BATCH_TASKS, description: `A batch of up to ${MAX_BATCH_TASKS} tasks.` })),
};
export const TaskArgsSchema = Type.Object(TaskArgsProperties, { additionalProperties: false });
export type TaskArgs = Static<typeof TaskArgsSchema>;

export const JobActivitySchema = Type.Object(
	{
		tool: Type.Optional(Type.String({ description: "The tool the child is running now." })),
		turns: Type.Integer({ minimum: 0, description: "Model turns so far." }),
		tokens: Type.Integer({ minimum: 0, description: "Tokens used so far (input and output)." }),
		waiting: Type.Optional(Type.Boolean({ description: "Its run ended and it waits for jobs it spawned." })),
	},
	{ title: "JobActivity" },
);

export const JobSchema = Type.Object(
	{
		id: Type.String(),
		agent: Type.String({ description: "The agent (or persona) that runs it." }),
		persona: Type.Optional(Type.Boolean({ description: "The agent is a persona." })),
		task: Type.String(),
		description: Type.Optional(Type.String()),
		parentSessionId: Type.String({ description: "The session that spawned it." }),
		sessionId: Type.Optional(Type.String({ description: "Its child session (open it like any session) once started." })),
		depth: Type.Integer({ minimum: 1, description: "1 for a job of a top-level session, 2 for a job of a job, ..." }),
		status: Type.Enum(JOB_STATUSES),
		createdAt: Type.String(),
		startedAt: Type.Optional(Type.String()),
		finishedAt: Type.Optional(Type.String()),
		yielded: Type.Optional(Type.Boolean({ description: "Finished: the result came from `yield` (false: its last reply)." })),
		outputPreview: Type.Optional(Type.String({ description: `The first ${OUTPUT_PREVIEW_CHARS} characters of its output.` })),
		error: Type.Optional(Type.String({ description: "Why it failed, was cancelled or interrupted." })),
		activity: JobActivitySchema,
	},
	{ title: "Job" },
);
export type Job = Static<typeof JobSchema>;

export const AgentCatalogEntrySchema = Type.Object(
	{
		name: Type.String(),
		source: Type.Enum(["bundled", "user", "project", "persona"]),
		description: Type.Optional(Type.String()),
		model: Type.Optional(Type.String()),
		thinking: Type.Optional(ThinkingLevelSchema),
		tools: Type.Optional(Type.Array(Type.String(), { description: "The core tools it may use (all when absent)." })),
		maxTurns: Type.Optional(Type.Integer()),
		timeoutSeconds: Type.Optional(Type.Integer()),
		file: Type.Optional(Type.String({ description: "The file that could not be read (with `error`)." })),
		error: Type.Optional(Type.String({ description: "Why the definition cannot be used." })),
	},
	{ title: "AgentCatalogEntry" },
);
export type AgentCatalogEntryView = Static<typeof AgentCatalogEntrySchema>;

export const JobLimitsSchema = Type.Object(
	{
		maxConcurrency: Type.Integer(),
		maxDepth: Type.Integer(),
		maxKept: Type.Integer(),
		maxTurns: Type.Integer(),
		timeoutSeconds: Type.Integer(),
	},
	{ title: "JobLimits" },
);
export type JobLimits = Static<typeof JobLimitsSchema>;

export const SpawnedSchema = Type.Object({
	jobs: Type.Array(JobSchema, { description: "The jobs created, in the order of the tasks." }),
});
