/**
 * Subagent jobs of the current session (and of its jobs): running and finished ones with their live elapsed
 * time and activity, a form that spawns a job with an agent of the catalog (`task_spawn`), and a job's detail:
 * its child's transcript streaming live, cancel, and its output once finished.
 */
import { useEffect, useState } from "preact/hooks";
import type { Job, Message } from "../../../../src/client/index.js";
import { FINISHED } from "../../state/jobs-state";
import { activity, elapsed, firstLine, useNow } from "../job-clock";
import { MessageView } from "../message-view";
import { clearIfUnchanged } from "../sent-field";
import type { PanelProps } from "./panel";
import { EmptyState, PanelLayout, PanelSection } from "./panel-layout";

export function JobsPanel({ controller }: PanelProps) {
	const jobs = controller.jobs;
	const { ready } = controller.state;
	const now = useNow(jobs.jobs.some((j) => !FINISHED.has(j.status)));
	useEffect(() => {
		if (ready && !jobs.current()) void jobs.refresh();
	}, [ready, controller.state.sessionId]);
	if (jobs.detail) return <JobDetailView controller={controller} now={now} />;
	const running = jobs.jobs.filter((j) => !FINISHED.has(j.status));
	const finished = jobs.jobs.filter((j) => FINISHED.has(j.status));
	return (
		<PanelLayout title="Jobs">
			<SpawnForm controller={controller} />
			<PanelSection title="Running">
				{running.length === 0 ? <EmptyState title="No job is running" /> : <JobList jobs={running} now={now} onOpen={(id) => void jobs.open(id)} />}
			</PanelSection>
			<PanelSection title="Finished">
				{finished.length === 0 ? <p class="hint">Finished jobs appear here.</p> : <JobList jobs={finished} now={now} onOpen={(id) => void jobs.open(id)} />}
			</PanelSection>
		</PanelLayout>
	);
}

function SpawnForm({ controller }: { controller: PanelProps["controller"] }) {
	const jobs = controller.jobs;
	const usable = jobs.agents.filter((a) => !a.error);
	const broken = jobs.agents.filter((a) => a.error);
	const [agent, setAgent] = useState("task");
	const [task, setTask] = useState("");
	const chosen = usable.find((a) => a.name === agent);
	const submit = async (event: Event) => {
		event.preventDefault();
		if (!task.trim()) return;
		if (await jobs.spawn(task, agent)) clearIfUnchanged(setTask, task);
	};
	return (
		<PanelSection title="New job">
			<form class="job-spawn" onSubmit={(e) => void submit(e)}>
				<label class="field">
					<span>Agent</span>
					<select name="agent" value={agent} onChange={(e) => setAgent((e.target as HTMLSelectElement).value)}>
						{usable.map((a) => (
							<option key={a.name} value={a.name}>
								{a.name}
								{a.source === "persona" ? " (persona)" : ""}
							</option>
						))}
					</select>
					{chosen?.description && <span class="hint">{chosen.description}</span>}
				</label>
				<label class="field">
					<span>Task</span>
					<textarea name="task" rows={3} value={task} onInput={(e) => setTask((e.target as HTMLTextAreaElement).value)} placeholder="What should the agent do?" />
				</label>
				<button type="submit" class="primary" disabled={!controller.state.ready || !task.trim()}>
					Spawn job
				</button>
				{broken.map((a) => (
					<p key={a.name} class="hint job-broken">
						{a.file ?? a.name}: {a.error}
					</p>
				))}
			</form>
		</PanelSection>
	);
}

function JobList({ jobs, now, onOpen }: { jobs: Job[]; now: number; onOpen(id: string): void }) {
	return (
		<ul class="job-list">
			{jobs.map((job) => (
				<li key={job.id} data-status={job.status}>
					<button type="button" class="job-open" onClick={() => onOpen(job.id)}>
						<span class="job-title">
							<span>{job.description ?? firstLine(job.task)}</span>
							<span class={`job-status ${job.status}`}>{job.status}</span>
						</span>
						<span class="job-meta">
							<span>{job.agent}</span>
							<span>{elapsed(job, now)}</span>
							<span>{activity(job)}</span>
						</span>
					</button>
				</li>
			))}
		</ul>
	);
}

function JobDetailView({ controller, now }: { controller: PanelProps["controller"]; now: number }) {
	const jobs = controller.jobs;
	const detail = jobs.detail!;
	const job = jobs.job(detail.jobId);
	const transcript = detail.transcript;
	const messages: Message[] = transcript ? [...transcript.messages, ...(transcript.streaming ? [transcript.streaming] : [])] : [];
	const results = new Map<string, Extract<Message, { role: "toolResult" }>>();
	for (const m of messages) if (m.role === "toolResult") results.set(m.toolCallId, m);
	const actions = (
		<>
			{job && !FINISHED.has(job.status) && (
				<button type="button" class="small" onClick={() => void jobs.cancel(job.id)}>
					Cancel job
				</button>
			)}
			<button type="button" class="small" onClick={() => jobs.close()}>
				Back
			</button>
		</>
	);
	return (
		<PanelLayout title={`Job ${detail.jobId}`} actions={actions}>
			{job && (
				<PanelSection title="Task">
					<p class="job-task">{job.task}</p>
					<p class="job-meta">
						<span class={`job-status ${job.status}`}>{job.status}</span>
						<span>{job.agent}</span>
						<span>{elapsed(job, now)}</span>
						<span>{activity(job)}</span>
					</p>
					{job.error && <p class="hint">{job.error}</p>}
				</PanelSection>
			)}
			{detail.output !== undefined && (
				<PanelSection title="Output">
					<pre class="job-output">{detail.output || "(no output)"}</pre>
				</PanelSection>
			)}
			<PanelSection title="Transcript">
				{!transcript ? (
					<EmptyState title="Not started yet" />
				) : (
					<div class="job-transcript">
						{messages
							.filter((m) => m.role !== "toolResult")
							.map((m, i) => (
								<MessageView key={i} message={m} results={results} live={transcript.toolOutputs} streaming={m === transcript.streaming} version={transcript.version} />
							))}
					</div>
				)}
			</PanelSection>
		</PanelLayout>
	);
}
