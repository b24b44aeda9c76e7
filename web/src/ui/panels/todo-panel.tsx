/**
 * Todo: the session's plan, live while the agent works on it (every `todo_updated`). Phases and their tasks,
 * each with its status, whether it is ready or what blocks it, and what it waits for. The circle before a task
 * completes it (or reopens a finished one); a task opens to start, complete, drop, reopen or remove it and to
 * add or remove what it waits for. Add task appends to a phase. A refused change (a cycle, a task that cannot start)
 * is said where it was asked, in the service's words.
 */
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { TodoPhaseView, TodoTaskView } from "../../../../src/client/index";
import { redact } from "../../render/redact";
import { allTasks, countTasks, dependentsOf, freshlyCompleted, type TodoOp } from "../../state/todo-state";
import { Icon } from "../icons";
import type { PanelProps } from "./panel";
import { EmptyState, PanelLayout } from "./panel-layout";
import "../../styles/todo.css";

/** How much of a blocking task's content its dependents' rows quote. */
const BLOCKER_CHARS = 48;

function clip(text: string, chars: number): string {
	return text.length > chars ? `${text.slice(0, chars - 1).trimEnd()}…` : text;
}

const STATUS_LABEL: Record<TodoTaskView["status"], string> = { pending: "pending", in_progress: "in progress", completed: "done", abandoned: "dropped" };

export function TodoPanel({ controller }: PanelProps) {
	const { ready, sessionId } = controller.state;
	const todo = controller.todo;
	const [adding, setAdding] = useState(false);
	const [open, setOpen] = useState<string | undefined>(undefined);
	const snapshot = ready && sessionId ? todo.plan(sessionId) : undefined;
	const plan = snapshot?.state === "loaded" ? snapshot.value : undefined;
	const tasks = plan ? allTasks(plan.phases) : [];
	const run = (op: TodoOp) => todo.run(sessionId!, op);

	return (
		<PanelLayout
			title="Todo"
			actions={
				tasks.length > 0 && (
					<button type="button" class="primary small" disabled={adding} onClick={() => setAdding(true)}>
						<Icon name="plus" />
						Add task
					</button>
				)
			}
		>
			{!snapshot || snapshot.state === "loading" ? (
				<p class="hint">{ready ? "Loading the plan…" : "Waiting for the connection…"}</p>
			) : snapshot.state === "failed" ? (
				<EmptyState title="The plan could not be read">
					<span>{snapshot.error}</span>
					<button type="button" class="small" onClick={() => todo.retry(sessionId!)}>
						Try again
					</button>
				</EmptyState>
			) : tasks.length === 0 ? (
				<EmptyState title="No plan yet">
					<span>The agent plans bigger jobs here with its todo tool, and works through them as you watch. You can start one yourself.</span>
					<AddTaskForm phases={plan!.phases} tasks={tasks} onAdd={run} />
				</EmptyState>
			) : (
				<>
					<Summary tasks={tasks} />
					{adding && <AddTaskForm phases={plan!.phases} tasks={tasks} onAdd={run} onEnd={() => setAdding(false)} />}
					{plan!.phases.map((phase) => (
						<PhaseView
							key={phase.name}
							phase={phase}
							tasks={tasks}
							justDone={freshlyCompleted(plan!)}
							open={open}
							onOpen={(id) => setOpen(open === id ? undefined : id)}
							run={run}
						/>
					))}
				</>
			)}
		</PanelLayout>
	);
}

function Summary({ tasks }: { tasks: TodoTaskView[] }) {
	const counts = countTasks(tasks);
	const settled = counts.done + counts.dropped;
	const parts = [`${counts.done} of ${counts.total} done`];
	if (counts.active) parts.push(`${counts.active} active`);
	if (counts.ready) parts.push(`${counts.ready} ready`);
	if (counts.blocked) parts.push(`${counts.blocked} blocked`);
	if (counts.dropped) parts.push(`${counts.dropped} dropped`);
	return (
		<div class="todo-summary">
			<div class="todo-progress" role="progressbar" aria-label="Tasks settled" aria-valuemin={0} aria-valuemax={counts.total} aria-valuenow={settled}>
				<span class="done" style={{ width: `${(counts.done / counts.total) * 100}%` }} />
				<span class="dropped" style={{ width: `${(counts.dropped / counts.total) * 100}%` }} />
			</div>
			<p class="hint todo-counts">
				{parts.map((part, n) => (
					<span key={part}>
						{n > 0 && " · "}
						{part}
					</span>
				))}
			</p>
		</div>
	);
}

function PhaseView(props: { phase: TodoPhaseView; tasks: TodoTaskView[]; justDone: Set<string>; open: string | undefined; onOpen(id: string): void; run(op: TodoOp): Promise<string | undefined> }) {
	const { phase } = props;
	const done = phase.tasks.filter((t) => t.status === "completed").length;
	return (
		<section class="panel-section todo-phase" aria-label={`Phase ${phase.name}`}>
			<h3>
				<span>{redact(phase.name)}</span>
				<span class="todo-phase-count">
					{done}/{phase.tasks.length}
				</span>
			</h3>
			{phase.tasks.length === 0 ? (
				<p class="hint">No tasks in this phase.</p>
			) : (
				<ul class="todo-tasks">
					{phase.tasks.map((task) => (
						<TaskRow key={task.id} task={task} tasks={props.tasks} justDone={props.justDone.has(task.id)} open={props.open === task.id} onOpen={() => props.onOpen(task.id)} run={props.run} />
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

function TaskRow(props: { task: TodoTaskView; tasks: TodoTaskView[]; justDone: boolean; open: boolean; onOpen(): void; run(op: TodoOp): Promise<string | undefined> }) {
	const { task, tasks } = props;
	const [error, setError] = useState("");
	const [busy, setBusy] = useState(false);
	const byId = new Map(tasks.map((t) => [t.id, t]));
	const settled = task.status === "completed" || task.status === "abandoned";
	const state = stateOf(task);
	const act = (op: TodoOp) => {
		setBusy(true);
		setError("");
		void props.run(op).then((refused) => {
			setBusy(false);
			setError(refused ?? "");
		});
	};
	const content = redact(task.content);
	return (
		<li class={`todo-task${props.justDone ? " just-done" : ""}${props.open ? " open" : ""}`} data-id={task.id} data-status={task.status} data-state={state.tone}>
			<div class="todo-row">
				<button
					type="button"
					class={`todo-status ${task.status}`}
					disabled={busy}
					aria-label={settled ? `Reopen ${task.id}` : `Mark ${task.id} done`}
					title={settled ? "Reopen" : "Mark done"}
					onClick={() => act({ op: settled ? "start" : "done", task: task.id })}
				/>
				<button type="button" class="todo-open" aria-expanded={props.open} aria-controls={`todo-detail-${task.id}`} onClick={props.onOpen}>
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
					{task.blockedBy.length > 0 && !settled && !props.open && (
						<span class="todo-blocked">
							Waits for {task.blockedBy.map((b) => `${b.id} “${clip(redact(b.content), BLOCKER_CHARS)}” (${STATUS_LABEL[b.status]})`).join(", ")}
						</span>
					)}
				</button>
			</div>
			{props.open && <TaskDetail task={task} tasks={tasks} busy={busy} act={act} />}
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

/** Adds a task to a phase (an existing one, or a new one), optionally waiting for another task. */
function AddTaskForm(props: { phases: TodoPhaseView[]; tasks: TodoTaskView[]; onAdd(op: TodoOp): Promise<string | undefined>; onEnd?(): void }) {
	const NEW_PHASE = "\u0000new";
	const [content, setContent] = useState("");
	const [phase, setPhase] = useState(props.phases.at(-1)?.name ?? NEW_PHASE);
	const [newPhase, setNewPhase] = useState(props.phases.length ? "" : "Tasks");
	const [after, setAfter] = useState("");
	const [error, setError] = useState("");
	const [busy, setBusy] = useState(false);
	const input = useRef<HTMLInputElement>(null);
	useLayoutEffect(() => {
		if (props.onEnd) input.current?.focus();
	}, []);
	return (
		<form
			class="todo-add"
			aria-label="Add a task"
			onSubmit={(e) => {
				e.preventDefault();
				const text = content.trim();
				const phaseName = phase === NEW_PHASE ? newPhase.trim() : phase;
				if (!text) return setError("Say what the task is.");
				if (!phaseName) return setError("Name the new phase.");
				setBusy(true);
				void props.onAdd({ op: "append", phase: phaseName, items: [after ? { content: text, dependsOn: [after] } : text] }).then((refused) => {
					setBusy(false);
					if (refused) return setError(refused);
					setContent("");
					setAfter("");
					setError("");
					if (props.onEnd) props.onEnd();
					else input.current?.focus();
				});
			}}
			onKeyDown={(e) => {
				if (e.key !== "Escape" || !props.onEnd) return;
				e.preventDefault(); // Esc gives up the new task only: the drawer stays open
				e.stopPropagation();
				props.onEnd();
			}}
		>
			<label class="field">
				<span>Task</span>
				<input
					ref={input}
					name="todo-content"
					value={content}
					maxLength={500}
					placeholder="What needs doing"
					aria-invalid={error ? "true" : undefined}
					aria-describedby={error ? "todo-add-error" : undefined}
					onInput={(e) => {
						setContent((e.target as HTMLInputElement).value);
						setError("");
					}}
				/>
			</label>
			<div class="todo-add-row">
				{props.phases.length > 0 && (
					<label class="field">
						<span>Phase</span>
						<select name="todo-phase" value={phase} onChange={(e) => setPhase((e.target as HTMLSelectElement).value)}>
							{props.phases.map((p) => (
								<option key={p.name} value={p.name}>
									{p.name}
								</option>
							))}
							<option value={NEW_PHASE}>New phase…</option>
						</select>
					</label>
				)}
				{props.tasks.length > 0 && (
					<label class="field">
						<span>After</span>
						<select name="todo-after" value={after} onChange={(e) => setAfter((e.target as HTMLSelectElement).value)}>
							<option value="">nothing</option>
							{props.tasks.map((t) => (
								<option key={t.id} value={t.id}>
									{t.id} {redact(t.content).slice(0, 40)}
								</option>
							))}
						</select>
					</label>
				)}
			</div>
			{phase === NEW_PHASE && (
				<label class="field">
					<span>{props.phases.length ? "New phase's name" : "Phase"}</span>
					<input name="todo-new-phase" value={newPhase} maxLength={100} onInput={(e) => setNewPhase((e.target as HTMLInputElement).value)} />
				</label>
			)}
			{error && (
				<p id="todo-add-error" class="error-text" role="alert">
					{error}
				</p>
			)}
			<div class="row">
				{props.onEnd && (
					<button type="button" class="small" onClick={props.onEnd}>
						Cancel
					</button>
				)}
				<button type="submit" class="primary small" disabled={busy}>
					Add task
				</button>
			</div>
		</form>
	);
}
