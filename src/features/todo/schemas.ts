/**
 * The todo plan's schemas: what is recorded, what the tool and the commands take, and what clients see. The
 * limits live here, beside the schemas that enforce them.
 */
import { type Static, Type } from "typebox";

/** At most this many tasks in a plan, and phases. */
export const MAX_TODO_TASKS = 200;
export const MAX_TODO_PHASES = 50;
/** Longest task content and phase name (characters). */
export const MAX_TASK_CONTENT_CHARS = 500;
export const MAX_PHASE_NAME_CHARS = 100;
/** Task ids: `t<n>` when the plan makes them; `todo_set` may keep others of this shape. */
export const TASK_ID_PATTERN = "^[A-Za-z0-9_-]{1,32}$";

export const TODO_STATUSES = ["pending", "in_progress", "completed", "abandoned"] as const;
export const TodoStatusSchema = Type.Enum(TODO_STATUSES, {
	description: "`pending`, `in_progress`, `completed` or `abandoned` (dropped: it no longer blocks anything).",
});
export type TodoStatus = Static<typeof TodoStatusSchema>;

const TaskId = Type.String({ pattern: TASK_ID_PATTERN, description: "A task id (`t1`, `t2`, ...), stable while the task exists." });
const Content = Type.String({ minLength: 1, maxLength: MAX_TASK_CONTENT_CHARS, description: "What to do (unique in the plan)." });
const PhaseName = Type.String({ minLength: 1, maxLength: MAX_PHASE_NAME_CHARS, description: "The phase's name (unique in the plan)." });

/** A task as recorded. */
export const TodoTaskSchema = Type.Object(
	{
		id: TaskId,
		content: Content,
		status: TodoStatusSchema,
		dependsOn: Type.Array(TaskId, { maxItems: MAX_TODO_TASKS, description: "Ids of the tasks this one waits for." }),
	},
	{ additionalProperties: false, title: "TodoTask" },
);
export type TodoTask = Static<typeof TodoTaskSchema>;

export const TodoPhaseSchema = Type.Object(
	{ name: PhaseName, tasks: Type.Array(TodoTaskSchema, { maxItems: MAX_TODO_TASKS }) },
	{ additionalProperties: false, title: "TodoPhase" },
);
export type TodoPhase = Static<typeof TodoPhaseSchema>;

/** The whole plan as recorded in the session (one snapshot per change). */
export const TodoPlanSchema = Type.Object(
	{
		phases: Type.Array(TodoPhaseSchema, { maxItems: MAX_TODO_PHASES }),
		nextId: Type.Integer({ minimum: 1, description: "The number of the next `t<n>` id (ids are never reused on a branch)." }),
	},
	{ additionalProperties: false, title: "TodoPlan" },
);
export type TodoPlan = Static<typeof TodoPlanSchema>;

const BlockerSchema = Type.Object(
	{ id: Type.String(), content: Type.String(), status: TodoStatusSchema },
	{ additionalProperties: false, title: "TodoBlocker" },
);

/** A task as clients see it: as recorded, plus what is derived after every change. */
export const TodoTaskViewSchema = Type.Object(
	{
		id: Type.String(),
		content: Type.String(),
		status: TodoStatusSchema,
		dependsOn: Type.Array(Type.String()),
		ready: Type.Boolean({ description: "Pending or in progress, and every dependency is completed or abandoned." }),
		blockedBy: Type.Array(BlockerSchema, { description: "The dependencies not completed or abandoned yet." }),
	},
	{ additionalProperties: false, title: "TodoTaskView" },
);
export type TodoTaskView = Static<typeof TodoTaskViewSchema>;

export const TodoPhaseViewSchema = Type.Object(
	{ name: Type.String(), tasks: Type.Array(TodoTaskViewSchema) },
	{ additionalProperties: false, title: "TodoPhaseView" },
);
export type TodoPhaseView = Static<typeof TodoPhaseViewSchema>;

/** A task that became completed with a change (reported once, by the change that completed it). */
export const CompletedTaskSchema = Type.Object(
	{ id: Type.String(), phase: Type.String(), content: Type.String() },
	{ additionalProperties: false, title: "CompletedTask" },
);
export type CompletedTask = Static<typeof CompletedTaskSchema>;

/** A task to add: its content, or its content and what it waits for (ids, or contents of tasks in the plan or the same list). */
export const TaskInputSchema = Type.Union(
	[
		Type.String({ minLength: 1, maxLength: MAX_TASK_CONTENT_CHARS }),
		Type.Object(
			{
				content: Content,
				dependsOn: Type.Optional(
					Type.Array(Type.String({ minLength: 1, maxLength: MAX_TASK_CONTENT_CHARS }), {
						maxItems: MAX_TODO_TASKS,
						description: "Task ids or exact contents.",
					}),
				),
			},
			{ additionalProperties: false },
		),
	],
	{ title: "TodoTaskInput" },
);
export type TaskInput = Static<typeof TaskInputSchema>;

export const TODO_OPS = ["init", "start", "done", "drop", "rm", "append", "add_dependency", "remove_dependency", "view"] as const;

/** One change of the plan (or `view`): the `todo` tool's arguments, and `todo_op`'s fields. */
export const TodoOpSchema = Type.Object(
	{
		op: Type.Enum(TODO_OPS, {
			description:
				"init: replace the plan with `list` (tasks whose content is already planned keep their id and status); " +
				"start: begin `task` (or the ready tasks of `phase`), also to reopen one; done / drop: complete / abandon `task`, " +
				"or every open task of `phase`, or of the plan; rm: remove `task` or `phase` (tasks that depend on it: " +
				"refused unless `cascade`, which removes them too); append: add `items` to `phase`; add_dependency / " +
				"remove_dependency: make `task` wait (no longer wait) for the tasks in `dependsOn`; view: show the plan.",
		}),
		list: Type.Optional(
			Type.Array(
				Type.Object(
					{ phase: PhaseName, items: Type.Array(TaskInputSchema, { maxItems: MAX_TODO_TASKS }) },
					{ additionalProperties: false },
				),
				{ maxItems: MAX_TODO_PHASES, description: "init: the phases in order, each with its tasks." },
			),
		),
		task: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_TASK_CONTENT_CHARS, description: "A task id or its exact content." })),
		phase: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_PHASE_NAME_CHARS, description: "A phase name." })),
		items: Type.Optional(Type.Array(TaskInputSchema, { maxItems: MAX_TODO_TASKS, description: "append: the tasks to add." })),
		dependsOn: Type.Optional(
			Type.Array(Type.String({ minLength: 1, maxLength: MAX_TASK_CONTENT_CHARS }), {
				maxItems: MAX_TODO_TASKS,
				description: "add_dependency / remove_dependency: task ids or exact contents.",
			}),
		),
		cascade: Type.Optional(Type.Boolean({ description: "rm: also remove the tasks that depend on what is removed." })),
	},
	{ additionalProperties: false, title: "TodoOp" },
);
export type TodoOp = Static<typeof TodoOpSchema>;

/** A whole plan as a client sets it (`todo_set`): tasks may keep their ids; statuses default to pending. */
export const TodoSetPhaseSchema = Type.Object(
	{
		name: PhaseName,
		tasks: Type.Array(
			Type.Object(
				{
					id: Type.Optional(TaskId),
					content: Content,
					status: Type.Optional(TodoStatusSchema),
					dependsOn: Type.Optional(
						Type.Array(Type.String({ minLength: 1, maxLength: MAX_TASK_CONTENT_CHARS }), {
							maxItems: MAX_TODO_TASKS,
							description: "Ids or exact contents of tasks in this plan.",
						}),
					),
				},
				{ additionalProperties: false },
			),
			{ maxItems: MAX_TODO_TASKS },
		),
	},
	{ additionalProperties: false, title: "TodoSetPhase" },
);
export type TodoSetPhase = Static<typeof TodoSetPhaseSchema>;
