/**
 * Workflows (docs/agents.md, "Workflows"): a list with each workflow's status and progress, a form that starts
 * one in the current session's directory, and a workflow's detail: its objective, the supervisor's activity,
 * the workers with their task, the plan as phases of tasks, the integration summary, and only the actions the
 * workflow allows now. Everything follows `workflow_updated` live.
 */
import { useEffect, useState } from "preact/hooks";
import type { TodoPhaseView, Workflow, WorkflowIntegration } from "../../../../src/client/index.js";
import type { Isolation, WorkflowAction } from "../../state/workflows-state";
import { clearIfUnchanged } from "../sent-field";
import type { PanelProps } from "./panel";
import { EmptyState, PanelLayout, PanelSection } from "./panel-layout";
import { PhaseView } from "./plan-list";

type Controller = PanelProps["controller"];

/** Mirrors WORKFLOW_NAME_PATTERN (src/features/workflows/schemas.ts), so the form says what is wrong before sending. */
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$/;

/** The buttons' words, in the order the record lists its actions. */
const ACTION_LABELS: Record<WorkflowAction, string> = {
	pause: "Pause",
	resume: "Resume",
	integrate: "Integrate",
	cancel: "Cancel workflow",
	remove: "Remove",
};

export function WorkflowsPanel({ controller }: PanelProps) {
	const workflows = controller.workflows;
	const { ready } = controller.state;
	useEffect(() => {
		if (ready && !workflows.loaded) void workflows.refresh();
	}, [ready]);
	const open = workflows.workflow(workflows.openId);
	if (open) return <WorkflowDetail controller={controller} workflow={open} />;
	return (
		<PanelLayout title="Workflows">
			<CreateForm controller={controller} />
			<PanelSection title="Workflows">
				{workflows.note && <p class="hint workflow-note">{workflows.note}</p>}
				{workflows.workflows.length === 0 ? (
					<EmptyState title="No workflow yet">
						<p class="hint">
							A workflow takes a larger objective: a supervisor agent plans it into phases of tasks, worker agents do the ready tasks in a
							git worktree of their own, and the result is merged back into this project's checkout when every task is done.
						</p>
					</EmptyState>
				) : (
					<ul class="workflow-list">
						{workflows.workflows.map((w) => (
							<li key={w.id} data-status={w.status}>
								<button type="button" class="workflow-open" onClick={() => workflows.open(w.id)}>
									<span class="workflow-title">
										<span>{w.name}</span>
										<StatusBadge status={w.status} />
									</span>
									<span class="workflow-meta">
										<span>{progress(w)}</span>
										<span>{started(w)}</span>
										{w.reason && <span>{w.reason}</span>}
									</span>
								</button>
							</li>
						))}
					</ul>
				)}
			</PanelSection>
		</PanelLayout>
	);
}

function CreateForm({ controller }: { controller: Controller }) {
	const [name, setName] = useState("");
	const [objective, setObjective] = useState("");
	const [isolation, setIsolation] = useState<Isolation>("worktree");
	const [busy, setBusy] = useState(false);
	const nameWrong = name.trim() !== "" && !NAME_PATTERN.test(name.trim());
	const submit = async (event: Event) => {
		event.preventDefault();
		if (!name.trim() || nameWrong || !objective.trim()) return;
		setBusy(true);
		if (await controller.workflows.create(name.trim(), objective, isolation)) {
			clearIfUnchanged(setName, name);
			clearIfUnchanged(setObjective, objective);
		}
		setBusy(false);
	};
	return (
		<PanelSection title="New workflow">
			<form class="workflow-create" onSubmit={(e) => void submit(e)}>
				<label class="field">
					<span>Name</span>
					<input name="name" value={name} maxLength={64} onInput={(e) => setName((e.target as HTMLInputElement).value)} aria-invalid={nameWrong} />
					{nameWrong && <span class="hint workflow-error">Letters, digits, spaces, _ . - only, starting with a letter or digit (at most 64).</span>}
				</label>
				<label class="field">
					<span>Objective</span>
					<textarea name="objective" rows={3} value={objective} onInput={(e) => setObjective((e.target as HTMLTextAreaElement).value)} placeholder="What should the workflow achieve?" />
				</label>
				<label class="field">
					<span>Isolation</span>
					<select name="isolation" value={isolation} onChange={(e) => setIsolation((e.target as HTMLSelectElement).value as Isolation)}>
						<option value="worktree">Git worktree, merged back</option>
						<option value="none">None: in the project directory</option>
					</select>
				</label>
				<button type="submit" class="primary" disabled={!controller.state.ready || busy || !name.trim() || nameWrong || !objective.trim()}>
					Start workflow
				</button>
			</form>
		</PanelSection>
	);
}

function WorkflowDetail({ controller, workflow }: { controller: Controller; workflow: Workflow }) {
	const workflows = controller.workflows;
	const [confirming, setConfirming] = useState(false);
	const tasks = new Map(workflow.phases.flatMap((p) => p.tasks.map((t) => [t.id, t.content] as const)));
	const run = (action: WorkflowAction) => {
		if (action === "remove" && !confirming) return setConfirming(true);
		setConfirming(false);
		void workflows.act(workflow.id, action);
	};
	const actions = (
		<>
			{workflow.actions.map((action) => (
				<button key={action} type="button" class="small" data-action={action} onClick={() => run(action)}>
					{action === "remove" && confirming ? "Confirm remove" : ACTION_LABELS[action]}
				</button>
			))}
			<button type="button" class="small" onClick={() => workflows.close()}>
				Back
			</button>
		</>
	);
	const supervisor = workflow.supervisor;
	return (
		<PanelLayout title={workflow.name} actions={actions}>
			<PanelSection title="Objective">
				<p class="workflow-meta workflow-summary">
					<StatusBadge status={workflow.status} />
					<span>{progress(workflow)}</span>
					<span>{workflow.isolation === "worktree" ? (workflow.git?.branch ?? "worktree") : "no isolation"}</span>
				</p>
				{workflow.reason && <p class="hint workflow-reason">{workflow.reason}</p>}
				<p class="workflow-objective">{workflow.objective}</p>
			</PanelSection>
			<PanelSection title="Supervisor">
				{!supervisor ? (
					<p class="hint">Not started yet.</p>
				) : (
					<p class="workflow-meta workflow-supervisor">
						<StatusBadge status={supervisor.status} />
						{supervisor.tool && <span>running {supervisor.tool}</span>}
						<span>{plural(supervisor.turns, "turn")}</span>
						<span>{plural(supervisor.toolCalls, "tool call")}</span>
						{supervisor.failures > 0 && <span>{plural(supervisor.failures, "failure")} in a row</span>}
						<span>{workflow.planned ? "plan made" : "planning"}</span>
					</p>
				)}
			</PanelSection>
			<PanelSection title="Workers">
				{workflow.workers.length === 0 ? (
					<p class="hint">Workers start once the plan has ready tasks.</p>
				) : (
					<ul class="workflow-workers">
						{workflow.workers.map((w) => (
							<li key={w.jobId} data-status={w.status}>
								<span class="workflow-title">
									<span>
										{w.taskId}: {tasks.get(w.taskId) ?? ""}
									</span>
									<StatusBadge status={w.status} />
								</span>
								<span class="workflow-meta">
									<span>{w.jobId}</span>
									{w.tool && <span>running {w.tool}</span>}
									{w.error && <span class="workflow-error">{w.error}</span>}
								</span>
							</li>
						))}
					</ul>
				)}
			</PanelSection>
			<PanelSection title="Plan">
				{workflow.phases.length === 0 ? <p class="hint">The supervisor has not made a plan yet.</p> : <Plan phases={workflow.phases} />}
			</PanelSection>
			{workflow.integration && (
				<PanelSection title="Integration">
					<IntegrationSummary integration={workflow.integration} />
				</PanelSection>
			)}
		</PanelLayout>
	);
}

/** The plan as the Todo panel shows one (the same rows and states), without its actions: the supervisor plans. */
function Plan({ phases }: { phases: TodoPhaseView[] }) {
	const tasks = phases.flatMap((phase) => phase.tasks);
	return (
		<div class="workflow-plan">
			{phases.map((phase) => (
				<PhaseView key={phase.name} phase={phase} tasks={tasks} nested />
			))}
		</div>
	);
}

function IntegrationSummary({ integration }: { integration: WorkflowIntegration }) {
	return (
		<div class="workflow-integration">
			<p class="workflow-meta">
				{integration.method && <span>{integration.method === "none" ? "nothing to merge" : integration.method}</span>}
				<span>{plural(integration.filesChanged, "file")} changed</span>
				<span class="workflow-ins">+{integration.insertions}</span>
				<span class="workflow-del">−{integration.deletions}</span>
				{integration.commit && <span>at {integration.commit.slice(0, 10)}</span>}
			</p>
			{integration.conflicts.length > 0 && (
				<>
					<p class="hint workflow-error">Conflicts (nothing was merged):</p>
					<ul class="workflow-files workflow-conflicts">
						{integration.conflicts.map((file) => (
							<li key={file}>{file}</li>
						))}
					</ul>
				</>
			)}
			{integration.files.length > 0 && (
				<ul class="workflow-files">
					{integration.files.map((f) => (
						<li key={f.path}>
							<span>{f.path}</span>
							<span class="workflow-ins">+{f.insertions}</span>
							<span class="workflow-del">−{f.deletions}</span>
						</li>
					))}
				</ul>
			)}
		</div>
	);
}

function StatusBadge({ status }: { status: string }) {
	return <span class={`workflow-status ${status}`}>{status}</span>;
}

/** "2/3 tasks done", or where it is before it has a plan. */
function progress(workflow: Workflow): string {
	const tasks = workflow.phases.flatMap((p) => p.tasks);
	if (tasks.length === 0) return workflow.planned ? "an empty plan" : "no plan yet";
	const done = tasks.filter((t) => t.status === "completed" || t.status === "abandoned").length;
	return `${done}/${tasks.length} tasks done`;
}

/** When it was created, as the reader's clock reads it. */
function started(workflow: Workflow): string {
	return new Date(workflow.createdAt).toLocaleString(undefined, { dateStyle: "short", timeStyle: "short" });
}

function plural(n: number, word: string): string {
	return `${n} ${word}${n === 1 ? "" : "s"}`;
}
