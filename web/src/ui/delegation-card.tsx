/**
 * A `task` tool call in a transcript, drawn as a delegation card: which agent got what, and for each job its
 * live status (from job_updated) and elapsed time; a job opens in the Jobs panel's detail view. The job ids come
 * from the tool's result ("- <id> (<agent>): <summary>" lines, in the order of the tasks); before it arrives the
 * card shows the arguments as the model streams them. A job's result, when it reaches the session (a `job_card`
 * message), is a card too: the task, the result's first line, a link to the job, and whether the result woke
 * the agent (and why).
 */
import { useContext, useEffect } from "preact/hooks";
import type { Job, Message, ToolCallBlock } from "../../../src/client/index.js";
import { redact } from "../render/redact";
import { FINISHED, type JobsState } from "../state/jobs-state";
import { contentText, type LiveToolOutput } from "../state/transcript";
import { Icon } from "./icons";
import { elapsed, firstLine, useNow } from "./job-clock";
import { cardDetails } from "./job-card-details";
import { type JobLink, JobLinkContext } from "./job-link";

/** The tool whose calls are drawn as delegation cards. */
export const DELEGATION_TOOL = "task";

/** One line of the task tool's result: `- job-1a2b (reviewer): summary`. */
const STARTED_LINE = /^- (job-[0-9a-f]+) \(([^)]*)\): (.*)$/;

interface Delegated {
	agent: string;
	summary: string;
	jobId?: string;
}

/** Jobs of the session whose list is being loaded for cards, so that several cards ask only once. */
const loading = new WeakMap<JobsState, Promise<void>>();

export function DelegationCard(props: { block: ToolCallBlock; result?: Extract<Message, { role: "toolResult" }>; live?: LiveToolOutput }) {
	const { block, result, live } = props;
	const link = useContext(JobLinkContext);
	const items = delegated(block, result);
	const jobs = items.map((item) => (item.jobId ? link?.jobs.job(item.jobId) : undefined));
	const now = useNow(jobs.some((job) => job && !FINISHED.has(job.status)));
	useSessionJobs(link, items.some((i) => i.jobId));
	const failed = result?.isError || (!result && live?.done && live.isError);
	const batch = items.length > 1;
	const heading = batch ? `Delegated ${items.length} tasks` : `Delegated to ${items[0]?.agent ?? "task"}`;
	return (
		<div class="tool delegation" data-state={failed ? "failed" : result ? "started" : "starting"}>
			<div class="tool-head">
				<span class="tool-name">{heading}</span>
				{failed ? <span class="tool-state failed">failed</span> : !result && <span class="tool-state running">starting</span>}
			</div>
			{failed ? (
				<div class="output error">
					<pre>{redact(result ? contentText(result.content) : (live?.text ?? ""))}</pre>
				</div>
			) : (
				<ul class="delegation-jobs">
					{items.map((item, i) => (
						<DelegatedJob key={item.jobId ?? i} item={item} job={jobs[i]} now={now} showAgent={batch} onOpen={link && item.jobId ? () => link.open(item.jobId!) : undefined} />
					))}
				</ul>
			)}
		</div>
	);
}

/** The cards' statuses come from the session's job list: loads it once when it is not the current session's. */
function useSessionJobs(link: JobLink | undefined, wanted: boolean): void {
	useEffect(() => {
		if (!link || !wanted || link.jobs.current() || loading.has(link.jobs)) return;
		const load = link.jobs.refresh().finally(() => loading.delete(link.jobs));
		loading.set(link.jobs, load);
	});
}

/** The custom message type of a job's result as the session's transcript shows it (the jobs feature's JOB_CARD_TYPE). */
export const JOB_CARD = "job_card";

const FINISHED_AS: Partial<Record<Job["status"], string>> = { completed: "finished", failed: "failed", cancelled: "was cancelled", interrupted: "was interrupted" };

/** A job's result in the transcript: who did what, the result's first line, the job a click away, and a wake said. */
export function JobResultCard({ message }: { message: Extract<Message, { role: "custom" }> }) {
	const link = useContext(JobLinkContext);
	const details = cardDetails(message.details);
	const job = details.jobId ? link?.jobs.job(details.jobId) : undefined;
	useSessionJobs(link, details.jobId !== undefined);
	const status = job?.status ?? details.status;
	const agent = job?.agent ?? details.agent ?? "task";
	// Cards recorded before the details held a summary: what their text says after "Job <id> (<agent>) <status>: ".
	const summary = details.summary ?? contentText(message.content).replace(/^Job \S+ \([^)]*\) \w+: /, "");
	// Jobs recorded before the output was the reply itself begin it with the note for the model.
	const result = (job?.status === "completed" ? (job.outputPreview ?? summary) : summary).replace(/^\[The job ended without calling yield[^\]\n]*\]\n?/, "");
	const item = { agent, jobId: details.jobId, summary: job?.description ?? details.description ?? (job ? firstLine(job.task) : "the task") };
	return (
		<div class="tool job-result" data-status={status}>
			<div class="tool-head">
				<span class="tool-name">
					{agent} {(status && FINISHED_AS[status]) ?? status}
				</span>
			</div>
			<ul class="delegation-jobs">
				<DelegatedJob item={item} job={job} now={0} showAgent={false} onOpen={link && details.jobId ? () => link.open(details.jobId!) : undefined} />
			</ul>
			{result && <p class="job-result-text">{redact(result)}</p>}
			{details.yielded === false && <p class="hint job-result-note">It ended without calling yield: this is its last reply.</p>}
			{details.woke && (
				<p class="job-woke">
					<Icon name="jobs" />
					{details.woke}
				</p>
			)}
		</div>
	);
}

function DelegatedJob(props: { item: Delegated; job: Job | undefined; now: number; showAgent: boolean; onOpen?: () => void }) {
	const { item, job, now, showAgent, onOpen } = props;
	const status = job?.status ?? (item.jobId ? "queued" : undefined);
	const body = (
		<>
			<span class="delegation-summary">
				{showAgent && <span class="delegation-agent">{item.agent}</span>}
				<span>{redact(item.summary)}</span>
			</span>
			<span class="delegation-meta">
				{job && <span>{elapsed(job, now)}</span>}
				{status && <span class={`job-status ${status}`}>{status}</span>}
			</span>
		</>
	);
	return (
		<li data-status={status}>
			{onOpen ? (
				<button type="button" class="delegation-open" onClick={onOpen} aria-label={`Open in Jobs: ${item.agent}, ${redact(item.summary)}${status ? ` (${status})` : ""}`}>
					{body}
				</button>
			) : (
				<div class="delegation-open">{body}</div>
			)}
		</li>
	);
}

/** The tasks of the call, with their job ids once the tool has answered. */
function delegated(block: ToolCallBlock, result: Extract<Message, { role: "toolResult" }> | undefined): Delegated[] {
	if (result && !result.isError) {
		const started = contentText(result.content)
			.split("\n")
			.map((line) => STARTED_LINE.exec(line))
			.filter((m): m is RegExpExecArray => m !== null)
			.map((m) => ({ jobId: m[1], agent: m[2]!, summary: m[3]! }));
		if (started.length > 0) return started;
	}
	const args = (block.arguments ?? {}) as { task?: unknown; agent?: unknown; description?: unknown; tasks?: unknown };
	const text = (value: unknown) => (typeof value === "string" ? value : "");
	if (Array.isArray(args.tasks)) {
		return args.tasks.map((t: { task?: unknown; agent?: unknown; description?: unknown }) => ({
			agent: text(t?.agent) || text(args.agent) || "task",
			summary: text(t?.description) || firstLine(text(t?.task)),
		}));
	}
	return [{ agent: text(args.agent) || "task", summary: text(args.description) || firstLine(text(args.task)) || "…" }];
}
