/** The shapes the workflows feature records, answers and announces, and its bounds. */
import { type Static, Type } from "typebox";
import { TodoPhaseViewSchema, TodoPlanSchema } from "../todo/index.js";

/** What a workflow may be called (it names the branch too, so it stays short and plain). */
export const WORKFLOW_NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$";
/** Longest objective. */
export const MAX_OBJECTIVE_CHARS = 32 * 1024;
/** Most conflicting files and most changed files a summary lists. */
export const MAX_SUMMARY_FILES = 200;
export const WORKFLOW_ID_PATTERN = "^wf-[0-9a-f]{12}$";

export const WORKFLOW_STATUSES = ["queued", "planning", "running", "paused", "integrating", "completed", "failed", "cancelled", "conflicted"] as const;
export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number];

/** What a person may ask of a workflow (each allowed only in some states: see lifecycle.ts). */
export const WORKFLOW_ACTIONS = ["pause", "resume", "cancel", "integrate", "remove"] as const;
export type WorkflowAction = (typeof WORKFLOW_ACTIONS)[number];

export const ISOLATIONS = ["worktree", "none"] as const;
export type Isolation = (typeof ISOLATIONS)[number];

export const WorkerSchema = Type.Object(
	{
		taskId: Type.String({ description: "The plan's task this job works on." }),
		jobId: Type.String(),
		sessionId: Type.Optional(Type.String({ description: "The job's child session, once started." })),
		status: Type.String({ description: "The job's status (job_updated)." }),
		tool: Type.Optional(Type.String({ description: "The tool it runs now." })),
		error: Type.Optional(Type.String()),
	},
	{ additionalProperties: false, title: "WorkflowWorker" },
);
export type Worker = Static<typeof WorkerSchema>;

export const SupervisorSchema = Type.Object(
	{
		jobId: Type.String(),
		sessionId: Type.Optional(Type.String({ description: "The supervisor's child session, once started." })),
		status: Type.String({ description: "Its job's status." }),
		turns: Type.Integer({ minimum: 0 }),
		toolCalls: Type.Integer({ minimum: 0 }),
		failures: Type.Integer({ minimum: 0, description: "Tool calls that failed in a row." }),
		tool: Type.Optional(Type.String({ description: "The tool it runs now." })),
	},
	{ additionalProperties: false, title: "WorkflowSupervisor" },
);
export type Supervisor = Static<typeof SupervisorSchema>;

export const FileChangeSchema = Type.Object(
	{ path: Type.String(), insertions: Type.Integer({ minimum: 0 }), deletions: Type.Integer({ minimum: 0 }) },
	{ additionalProperties: false, title: "WorkflowFileChange" },
);
export type FileChange = Static<typeof FileChangeSchema>;

export const IntegrationSchema = Type.Object(
	{
		method: Type.Optional(Type.Enum(["fast-forward", "merge", "none"], { description: "How the base took the branch (`none`: nothing to take)." })),
		filesChanged: Type.Integer({ minimum: 0 }),
		insertions: Type.Integer({ minimum: 0 }),
		deletions: Type.Integer({ minimum: 0 }),
		files: Type.Array(FileChangeSchema, { description: `The changed files (at most ${MAX_SUMMARY_FILES}).` }),
		conflicts: Type.Array(Type.String(), { description: "Files that would conflict with the base (nothing was merged)." }),
		commit: Type.Optional(Type.String({ description: "The base's commit after integrating." })),
	},
	{ additionalProperties: false, title: "WorkflowIntegration" },
);
export type Integration = Static<typeof IntegrationSchema>;

export const WorkflowGitSchema = Type.Object(
	{
		branch: Type.String({ description: "`skiff/workflow/<id>`." }),
		worktree: Type.String({ description: "The isolated checkout the jobs work in." }),
		baseBranch: Type.Optional(Type.String({ description: "The base checkout's branch when the workflow was created (absent: detached)." })),
		baseCommit: Type.String({ description: "The commit the branch started from." }),
	},
	{ additionalProperties: false, title: "WorkflowGit" },
);

/**
 * The journal of an integration moving the base's branch, recorded before git touches the base and cleared
 * once it is settled (see base-move.ts); never shown to clients.
 */
export const BaseMoveSchema = Type.Object(
	{
		ref: Type.String({ description: "The branch moved, `refs/heads/<name>`." }),
		from: Type.String({ description: "Its commit before." }),
		to: Type.String({ description: "The integrated commit it moves to." }),
		method: Type.Enum(["fast-forward", "merge"]),
		startedAt: Type.String(),
	},
	{ additionalProperties: false, title: "WorkflowBaseMove" },
);
export type BaseMove = Static<typeof BaseMoveSchema>;

/** A workflow as recorded (`<agent-dir>/workflows/<id>/workflow.json`). */
const recordProperties = {
		id: Type.String({ pattern: WORKFLOW_ID_PATTERN }),
		name: Type.String(),
		objective: Type.String(),
		isolation: Type.Enum(ISOLATIONS),
		sessionId: Type.String({ description: "The session that created it (its jobs are that session's)." }),
		baseDir: Type.String({ description: "The base checkout (the repository's top level), or the directory with isolation `none`." }),
		status: Type.Enum(WORKFLOW_STATUSES),
		reason: Type.Optional(Type.String({ description: "Why it is paused, failed, cancelled or conflicted." })),
		planned: Type.Boolean({ description: "The supervisor finished its plan." }),
		plan: TodoPlanSchema,
		supervisor: Type.Optional(SupervisorSchema),
		workers: Type.Array(WorkerSchema),
		git: Type.Optional(WorkflowGitSchema),
		integration: Type.Optional(IntegrationSchema),
		baseMove: Type.Optional(BaseMoveSchema),
		createdAt: Type.String(),
		updatedAt: Type.String(),
};
export const WorkflowRecordSchema = Type.Object(recordProperties, { title: "WorkflowRecord" });
export type WorkflowRecord = Static<typeof WorkflowRecordSchema>;

const { plan: _plan, baseMove: _baseMove, ...viewProperties } = recordProperties;

/** A workflow as clients see it: the record with the plan drawn as the todo panel draws it and the actions allowed now. */
export const WorkflowSchema = Type.Object(
	{
		...viewProperties,
		phases: Type.Array(TodoPhaseViewSchema, { description: "The plan, with `ready` and `blockedBy` (todo_get's shape)." }),
		actions: Type.Array(Type.Enum(WORKFLOW_ACTIONS), { description: "The actions allowed in its current state." }),
	},
	{ title: "Workflow" },
);
export type Workflow = Static<typeof WorkflowSchema>;

export const WorkflowLimitsSchema = Type.Object(
	{
		supervisorMaxTurns: Type.Integer(),
		supervisorMaxToolCalls: Type.Integer(),
		supervisorTimeoutSeconds: Type.Integer(),
		supervisorMaxFailures: Type.Integer(),
		maxWorkers: Type.Integer(),
	},
	{ title: "WorkflowLimits" },
);
export type WorkflowLimits = Static<typeof WorkflowLimitsSchema>;
