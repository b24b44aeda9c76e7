/**
 * Todo: the session's plan, live while the agent works on it (every `todo_updated`). Phases and their tasks,
 * each with its status, whether it is ready or what blocks it, and what it waits for. The circle before a task
 * completes it (or reopens a finished one); a task opens to start, complete, drop, reopen or remove it and to
 * add or remove what it waits for. Add task appends to a phase. A refused change (a cycle, a task that cannot start)
 * is said where it was asked, in the service's words.
 */
import { Fragment } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { TodoPhaseView, TodoTaskView } from "../../../../src/client/index.js";
import { redact } from "../../render/redact";
import { allTasks, countTasks, freshlyCompleted, type TodoOp } from "../../state/todo-state";
import { Icon } from "../icons";
import { clearIfUnchanged } from "../sent-field";
import type { PanelProps } from "./panel";
import { EmptyState, PanelLayout, SnapshotPending } from "./panel-layout";
import { PhaseView } from "./plan-list";

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
			{snapshot?.state !== "loaded" ? (
				<SnapshotPending snapshot={snapshot} ready={ready} loading="Loading the plan…" failed="The plan could not be read" onRetry={() => todo.retry(sessionId!)} />
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
							actions={{ open, onOpen: (id) => setOpen(open === id ? undefined : id), run }}
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
				{/* The separators sit between the parts, so the line breaks there, never inside a part. */}
				{parts.map((part, n) => (
					<Fragment key={part}>
						{n > 0 && " · "}
						<span>{part}</span>
					</Fragment>
				))}
			</p>
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
					clearIfUnchanged(setContent, content);
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
