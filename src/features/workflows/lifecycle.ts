/**
 * The workflow lifecycle, pure: `queued → planning → running ⇄ paused → integrating → completed`, with the
 * terminal `failed`, `cancelled` and `conflicted` (a conflicted workflow may only be integrated again, once the
 * base changed, cancelled or removed). Every change of status goes through `transition`, which refuses a step
 * the current state does not allow with a message naming both.
 */
import { CodedError } from "../../shared/errors.js";
import type { WorkflowAction, WorkflowStatus } from "./schemas.js";

/** Everything that moves a workflow: a person's action, or what its agents and git report. */
export type WorkflowStep =
	| "plan" // the supervisor starts
	| "planned" // the supervisor made its plan
	| "tasks_done" // every task of the plan is settled
	| "integrated"
	| "conflict" // with the base (integrating), or between two tasks (running)
	| "fail"
	| "interrupt" // the service stopped under it
	| Exclude<WorkflowAction, "remove">;

/** Statuses that need a person to move on (nothing runs in them). */
export const TERMINAL_STATUSES: ReadonlySet<WorkflowStatus> = new Set(["completed", "failed", "cancelled", "conflicted"]);

const ACTIVE: WorkflowStatus[] = ["queued", "planning", "running", "integrating"];

/** From which statuses each step goes where (`resume` is decided by whether the plan was made). */
const STEPS: Record<WorkflowStep, Partial<Record<WorkflowStatus, WorkflowStatus>>> = {
	plan: { queued: "planning" },
	planned: { planning: "running" },
	pause: { planning: "paused", running: "paused" },
	resume: { paused: "running" },
	tasks_done: { running: "integrating" },
	integrate: { paused: "integrating", conflicted: "integrating" },
	integrated: { integrating: "completed" },
	// Running: two tasks' changes to the same lines (each task works in a checkout of its own, merged when done).
	conflict: { integrating: "conflicted", running: "conflicted" },
	fail: Object.fromEntries([...ACTIVE, "paused"].map((s) => [s, "failed"])),
	interrupt: Object.fromEntries(ACTIVE.map((s) => [s, "paused"])),
	cancel: Object.fromEntries([...ACTIVE.filter((s) => s !== "integrating"), "paused", "conflicted"].map((s) => [s, "cancelled"])),
};

/** Statuses a workflow may be removed from (its worktree with it). */
const REMOVABLE: ReadonlySet<WorkflowStatus> = TERMINAL_STATUSES;

/**
 * The status after `step`; throws `conflict` when the step is not allowed from `status`. `planned`: the
 * supervisor finished its plan (a resumed workflow without one plans again).
 */
export function transition(status: WorkflowStatus, step: WorkflowStep, planned = true): WorkflowStatus {
	const next = STEPS[step][status];
	if (next === undefined) throw new CodedError("conflict", `A workflow that is ${status} cannot ${describe(step)}${hint(status)}`);
	return step === "resume" && !planned ? "planning" : next;
}

/** Whether a person may take `action` now. */
export function allows(status: WorkflowStatus, action: WorkflowAction): boolean {
	return action === "remove" ? REMOVABLE.has(status) : STEPS[action][status] !== undefined;
}

/** The actions a person may take now, in a stable order. */
export function allowedActions(status: WorkflowStatus): WorkflowAction[] {
	return (["pause", "resume", "integrate", "cancel", "remove"] as const).filter((action) => allows(status, action));
}

/** Throws `conflict` unless `action` is allowed from `status`. */
export function checkAction(status: WorkflowStatus, action: WorkflowAction): void {
	if (!allows(status, action)) throw new CodedError("conflict", `A workflow that is ${status} cannot ${describe(action)}${hint(status)}`);
}

const DESCRIBED: Record<WorkflowStep | "remove", string> = {
	plan: "start planning",
	planned: "start running its plan",
	pause: "be paused",
	resume: "be resumed",
	tasks_done: "start integrating",
	integrate: "be integrated",
	integrated: "complete",
	conflict: "be marked conflicted",
	fail: "fail",
	interrupt: "be interrupted",
	cancel: "be cancelled",
	remove: "be removed (cancel it first)",
};

function describe(step: WorkflowStep | "remove"): string {
	return DESCRIBED[step];
}

function hint(status: WorkflowStatus): string {
	const allowed = allowedActions(status);
	return allowed.length ? ` (allowed now: ${allowed.join(", ")})` : "";
}
