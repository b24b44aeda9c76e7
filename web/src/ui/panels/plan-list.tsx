/**
 * A plan's phases and tasks as the Todo panel draws them, and as a workflow's plan is shown too: each task with
 * its status circle, its state in words (in progress, ready, blocked, done, dropped), what it waits for and,
 * when blocked, by what. With actions (the Todo panel) the circle completes or reopens a task and a task opens
 * to its actions and links; without them the plan is only shown.
 */
import { useState } from "preact/hooks";
import type { TodoPhaseView, TodoTaskView } from "../../../../src/client/index.js";
import { redact } from "../../render/redact";
import { dependentsOf, type TodoOp } from "../../state/todo-state";
import { Icon } from "../icons";
import "../../styles/todo.css";

/** How much of a blocking task's content its dependents' rows quote. */
const BLOCKER_CHARS = 48;

function clip(text: string, chars: number): string {
	return text.length > chars ? `${text.slice(0, chars - 1).trimEnd()}…` : text;
}

const STATUS_LABEL: Record<TodoTaskView["status"], string> = { pending: "pending", in_progress: "in progress", completed: "done", abandoned: "dropped" };

/** What a plan you can change offers: the task opened (its actions) and the ops to run. */
export interface PlanActions {
	open: string | undefined;
	onOpen(id: string): void;
	run(op: TodoOp): Promise<string | undefined>;
}

/**
 * One phase of a plan and its tasks. Without `actions` it is read-only (a workflow's plan, which its supervisor
 * changes): the same rows, states and blockers, no buttons. `nested` when it sits inside a titled section.
 */
export function PhaseView(props: { phase: TodoPhaseView; tasks: TodoTaskView[]; justDone?: Set<string>; actions?: PlanActions; nested?: boolean }) {
	const { phase, actions } = props;
	const done = phase.tasks.filter((t) => t.status === "completed").length;
	const Heading = props.nested ? "h4" : "h3";
	return (
		<section class="panel-section todo-phase" aria-label={`Phase ${phase.name}`}>
			<Heading>
				<span>{redact(phase.name)}</span>
				<span class="todo-phase-count">
					{done}/{phase.tasks.length}
				</span>
			</Heading>
			{phase.tasks.length === 0 ? (
				<p class="hint">No tasks in this phase.</p>
			) : (
				<ul class="todo-tasks">
					{phase.tasks.map((task) => (
						<TaskRow key={task.id} task={task} tasks={props.tasks} justDone={props.justDone?.has(task.id) ?? false} actions={actions} />
					))}
				</ul>
			)}
		</section>
	);
}

/** What a task's row says of its state: in progress, ready, blocked, done, dropped or waiting. */
function stateOf(task: TodoTaskView): { label: string; tone: string } {
	if (task.status === "in_progress") return { label: task.blockedBy.length ? "in progress, blocked" : "in progress", tone: "active" };
	if (task.status === "completed") return { label: "done", tone: "done" };
	if (task.status === "abandoned") return { label: "dropped", tone: "dropped" };
	if (task.blockedBy.length > 0) return { label: "blocked", tone: "blocked" };
	return task.ready ? { label: "ready", tone: "ready" } : { label: "pending", tone: "pending" };
}

function TaskRow(props: { task: TodoTaskView; tasks: TodoTaskView[]; justDone: boolean; actions: PlanActions | undefined }) {
	const { task, tasks, actions } = props;
	const open = actions?.open === task.id;
	const [error, setError] = useState("");
	const [busy, setBusy] = useState(false);
	const byId = new Map(tasks.map((t) => [t.id, t]));
	const settled = task.status === "completed" || task.status === "abandoned";
	const state = stateOf(task);
	const act = (op: TodoOp) => {
		setBusy(true);
		setError("");
		void actions!.run(op).then((refused) => {
			setBusy(false);
			setError(refused ?? "");
		});
	};
	const content = redact(task.content);
	const summary = (
		<>
			<span class="todo-content">{content}</span>
			<span class="todo-meta">
				<span class="todo-id">{task.id}</span>
				<span class={`todo-state ${state.tone}`}>{state.label}</span>
				{task.dependsOn.length > 0 && (
					<span class="todo-deps">
						after{" "}
						{task.dependsOn.map((id) => (
							<span key={id} class={`todo-dep ${byId.get(id)?.status ?? ""}`} title={byId.get(id) ? redact(byId.get(id)!.content) : id}>
								{id}
							</span>
						))}
					</span>
				)}
			</span>
			{task.blockedBy.length > 0 && !settled && !open && (
				<span class="todo-blocked">
					Waits for {task.blockedBy.map((b) => `${b.id} “${clip(redact(b.content), BLOCKER_CHARS)}” (${STATUS_LABEL[b.status]})`).join(", ")}
				</span>
			)}
		</>
	);
	return (
		<li class={`todo-task${props.justDone ? " just-done" : ""}${open ? " open" : ""}`} data-id={task.id} data-status={task.status} data-state={state.tone}>
			{actions ? (
				<div class="todo-row">
					<button
						type="button"
						class={`todo-status ${task.status}`}
						disabled={busy}
						aria-label={settled ? `Reopen ${task.id}` : `Mark ${task.id} done`}
						title={settled ? "Reopen" : "Mark done"}
						onClick={() => act({ op: settled ? "start" : "done", task: task.id })}
					/>
					<button type="button" class="todo-open" aria-expanded={open} aria-controls={`todo-detail-${task.id}`} onClick={() => actions.onOpen(task.id)}>
						{summary}
					</button>
				</div>
			) : (
				<div class="todo-row">
					<span class={`todo-status ${task.status}`} role="img" aria-label={STATUS_LABEL[task.status]} />
					<div class="todo-open">{summary}</div>
				</div>
			)}
			{open && <TaskDetail task={task} tasks={tasks} busy={busy} act={act} />}
			{error && (
				<p class="error-text todo-error" role="alert">
					{error}
				</p>
			)}
		</li>
	);
}

/** A task's actions (those its state allows) and its dependencies, to link and unlink. */
function TaskDetail(props: { task: TodoTaskView; tasks: TodoTaskView[]; busy: boolean; act(op: TodoOp): void }) {
	const { task, tasks, act, busy } = props;
	const [target, setTarget] = useState("");
	const [removing, setRemoving] = useState(false);
	const byId = new Map(tasks.map((t) => [t.id, t]));
	const open = task.status === "pending" || task.status === "in_progress";
	const candidates = tasks.filter((t) => t.id !== task.id && !task.dependsOn.includes(t.id));
	const dependents = dependentsOf(task.id, tasks);
	if (removing) {
		return (
			<div class="todo-detail" id={`todo-detail-${task.id}`}>
				<div class="todo-confirm" role="group" aria-label={`Remove ${task.id}`}>
					<p>
						Remove {task.id} from the plan?
						{dependents.length > 0 && (
							<>
								{" "}
								{dependents.length === 1 ? "1 task waits" : `${dependents.length} tasks wait`} for it and {dependents.length === 1 ? "goes" : "go"} too:{" "}
								{dependents.map((t) => `${t.id} “${clip(redact(t.content), BLOCKER_CHARS)}”`).join(", ")}.
							</>
						)}{" "}
						Drop instead keeps it in the plan, marked dropped.
					</p>
					<div class="todo-actions">
						<button
							type="button"
							class="small danger"
							disabled={busy}
							onClick={() => act({ op: "rm", task: task.id, ...(dependents.length > 0 ? { cascade: true } : {}) })}
						>
							{dependents.length > 0 ? `Remove ${dependents.length + 1} tasks` : "Remove"}
						</button>
						<button type="button" class="small" disabled={busy} onClick={() => setRemoving(false)}>
							Keep
						</button>
					</div>
				</div>
			</div>
		);
	}
	return (
		<div class="todo-detail" id={`todo-detail-${task.id}`}>
			<div class="todo-actions">
				{task.status === "pending" && (
					<button type="button" class="small" disabled={busy || !task.ready} title={task.ready ? undefined : "It waits for other tasks"} onClick={() => act({ op: "start", task: task.id })}>
						Start
					</button>
				)}
				{open && (
					<button type="button" class="small" disabled={busy} onClick={() => act({ op: "done", task: task.id })}>
						Done
					</button>
				)}
				{open && (
					<button type="button" class="small danger" disabled={busy} onClick={() => act({ op: "drop", task: task.id })}>
						Drop
					</button>
				)}
				{!open && (
					<button type="button" class="small" disabled={busy} onClick={() => act({ op: "start", task: task.id })}>
						Reopen
					</button>
				)}
				<button type="button" class="small ghost todo-remove" disabled={busy} onClick={() => setRemoving(true)}>
					Remove…
				</button>
			</div>
			<div class="todo-links">
				<span class="todo-links-title">Waits for</span>
				{task.dependsOn.length === 0 ? (
					<span class="hint">nothing</span>
				) : (
					<ul>
						{task.dependsOn.map((id) => {
							const dep = byId.get(id);
							return (
								<li key={id}>
									<span class={`todo-dep ${dep?.status ?? ""}`}>{id}</span>
									<span class="todo-link-content">{dep ? redact(dep.content) : "not in the plan"}</span>
									<span class="hint">{dep ? STATUS_LABEL[dep.status] : ""}</span>
									<button type="button" class="ghost icon small" disabled={busy} aria-label={`${task.id} no longer waits for ${id}`} title="Unlink" onClick={() => act({ op: "remove_dependency", task: task.id, dependsOn: [id] })}>
										<Icon name="close" />
									</button>
								</li>
							);
						})}
					</ul>
				)}
				{candidates.length > 0 && (
					<form
						class="todo-link-form"
						onSubmit={(e) => {
							e.preventDefault();
							if (!target) return;
							act({ op: "add_dependency", task: task.id, dependsOn: [target] });
							setTarget("");
						}}
					>
						<select name="todo-link" aria-label={`Make ${task.id} wait for`} value={target} onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}>
							<option value="">Make it wait for…</option>
							{candidates.map((t) => (
								<option key={t.id} value={t.id}>
									{t.id} {redact(t.content).slice(0, 60)}
								</option>
							))}
						</select>
						<button type="submit" class="small" disabled={busy || !target}>
							Link
						</button>
					</form>
				)}
			</div>
		</div>
	);
}
