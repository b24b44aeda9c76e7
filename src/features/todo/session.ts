/**
 * The todo plan of one session: each change is recorded as a `custom` entry holding the whole plan (pi keeps
 * it and otherwise ignores it), and the plan is the newest valid snapshot on the active branch, so resume, fork,
 * clone and tree navigation restore the plan of the point the conversation continues from.
 */
import { compileOnFirstUse } from "../../shared/compile-on-first-use.js";
import type { FeatureSession, HiddenContext, SessionFeatures } from "../../agent/types.js";
import { CodedError } from "../../shared/errors.js";
import type { FeatureTool } from "../../agent/feature-tool.js";
import { boundText } from "../../agent/feature-tool.js";
import { type TodoCause, todoUpdatedEvent } from "./events.js";
import { applyTodoOp, setPlan, type TodoOutcome } from "./ops.js";
import { allTasks, checkPlan, EMPTY_PLAN, isSettled, normalize, samePlan, viewPlan } from "./plan.js";
import { renderPlan } from "./render.js";
import { type TodoOp, type TodoPlan, TodoPlanSchema, type TodoSetPhase } from "./schemas.js";
import { createTodoTool } from "./tool.js";

/** The custom entry type of plan snapshots, and the version of their data. */
export const TODO_ENTRY_TYPE = "skiff.todo";
export const TODO_RECORD_VERSION = 1;
/** The hidden message reminding the model of an unfinished plan before each prompt. */
export const TODO_CONTEXT_TYPE = "todo-context";

const checkSnapshot = compileOnFirstUse(TodoPlanSchema);

/** The newest snapshot on the branch that is a valid plan (a damaged one is passed over), else the empty plan. */
export function restorePlan(entries: ReadonlyArray<{ data: unknown }>): TodoPlan {
	for (let i = entries.length - 1; i >= 0; i--) {
		const data = entries[i]!.data as { version?: unknown; plan?: unknown } | undefined;
		if (data?.version !== TODO_RECORD_VERSION || !checkSnapshot().Check(data.plan)) continue;
		const plan = normalize(data.plan);
		try {
			checkPlan(plan);
			return plan;
		} catch {
			// not a plan Skiff could have written: look further back
		}
	}
	return EMPTY_PLAN;
}

export class TodoSession implements SessionFeatures {
	readonly tools: FeatureTool[];
	private current: TodoPlan = EMPTY_PLAN;
	private session: FeatureSession | undefined;

	constructor() {
		this.tools = [createTodoTool((op) => this.apply(op, "tool"))];
	}

	/** The session this plan lives in, once it is open. */
	get link(): FeatureSession | undefined {
		return this.session;
	}

	plan(): TodoPlan {
		return this.current;
	}

	bind(session: FeatureSession): void {
		this.session = session;
		this.current = restorePlan(session.customEntries(TODO_ENTRY_TYPE));
		session.onBranchChanged(() => this.restore());
	}

	activeToolNames(): string[] {
		return ["todo"];
	}

	/** Before each prompt, while the plan has open tasks: the plan, so the model keeps to it. */
	async contextForPrompt(): Promise<HiddenContext | undefined> {
		if (!allTasks(this.current).some((task) => !isSettled(task.status))) return undefined;
		const content = `The session's todo plan (keep it current with the todo tool: start, done, drop, append):\n${renderPlan(this.current)}`;
		return { customType: TODO_CONTEXT_TYPE, content: boundText(content) };
	}

	/** Applies one op (the tool's, or todo_op's); a change is recorded and announced. */
	apply(op: TodoOp, cause: TodoCause): TodoOutcome {
		const session = this.bound();
		const outcome = applyTodoOp(this.current, op);
		if (outcome.changed) this.commit(session, outcome, cause);
		return outcome;
	}

	/** Replaces the whole plan (todo_set). */
	set(phases: TodoSetPhase[]): TodoOutcome {
		const session = this.bound();
		const outcome = setPlan(this.current, phases);
		if (outcome.changed) this.commit(session, outcome, "command");
		return outcome;
	}

	private commit(session: FeatureSession, outcome: TodoOutcome, cause: TodoCause): void {
		session.checkCanRecord();
		// Recorded first: the plan changes only once its snapshot is in the session.
		session.appendCustomEntry(TODO_ENTRY_TYPE, { version: TODO_RECORD_VERSION, plan: outcome.plan });
		this.current = outcome.plan;
		session.emit({ type: todoUpdatedEvent.type, phases: viewPlan(outcome.plan), completed: outcome.completed, cause });
	}

	/** The active branch changed: its plan applies, and followers hear of it when it differs. */
	private restore(): void {
		const session = this.session;
		if (!session) return;
		const plan = restorePlan(session.customEntries(TODO_ENTRY_TYPE));
		const differs = !samePlan(plan, this.current);
		this.current = plan;
		if (differs) session.emit({ type: todoUpdatedEvent.type, phases: viewPlan(plan), completed: [], cause: "restored" });
	}

	private bound(): FeatureSession {
		if (!this.session) throw new CodedError("unavailable", "The session is not open yet");
		return this.session;
	}
}
