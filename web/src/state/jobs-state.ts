/**
 * The Jobs panel's state: the current session's jobs (kept current by `job_updated`), the agent catalog, and
 * the job opened in detail with its child's transcript, which streams on as the child's events arrive.
 */
import type { AgentCatalogEntry, Job, SkiffEvent } from "../../../src/client/index.js";
import { failureText, type PanelContext, runCommand } from "./panel-context";
import { Transcript } from "./transcript";

/** A job whose status never changes again. */
export const FINISHED = new Set(["completed", "failed", "cancelled", "interrupted"]);

export interface JobDetail {
	jobId: string;
	/** The child's transcript once the job has started (loaded with job_transcript). */
	transcript?: Transcript;
	output?: string;
}

export class JobsState {
	jobs: Job[] = [];
	agents: AgentCatalogEntry[] = [];
	loaded = false;
	detail: JobDetail | undefined;
	/** Bumped on every change. */
	version = 0;
	private forSession: string | undefined;

	constructor(private readonly context: PanelContext) {
		context.client.onEvent((event) => this.onEvent(event));
	}

	/** Loads the session's jobs and the catalog (again when the session changed). */
	async refresh(): Promise<void> {
		const sessionId = this.context.sessionId();
		if (!sessionId) return;
		const list = await runCommand(this.context, "job_list", "job_list", {}, sessionId);
		if (!list || sessionId !== this.context.sessionId()) return;
		this.forSession = sessionId;
		this.jobs = list.data.jobs;
		this.agents = list.data.agents;
		this.loaded = true;
		this.touch();
	}

	/** Whether the lists belong to the current session (else refresh). */
	current(): boolean {
		return this.loaded && this.forSession === this.context.sessionId();
	}

	async spawn(task: string, agent: string): Promise<boolean> {
		const spawned = await runCommand(this.context, "task_spawn", "task_spawn", { task, agent }, this.context.sessionId());
		for (const job of spawned?.data.jobs ?? []) this.upsert(job);
		return spawned !== undefined;
	}

	async cancel(jobId: string): Promise<void> {
		await runCommand(this.context, "job_cancel", "job_cancel", { jobIds: [jobId] }, this.context.sessionId());
	}

	/** Opens a job in detail: its transcript (following the child's events) and, once finished, its output. */
	async open(jobId: string): Promise<void> {
		this.detail = { jobId };
		this.touch();
		await this.load(jobId);
	}

	/**
	 * Opens a job from elsewhere on the page (a delegation card, a persona run): loads the session's jobs first
	 * when they are not current, so the detail knows the job and follows it.
	 */
	async show(jobId: string): Promise<void> {
		if (!this.current()) await this.refresh();
		await this.open(jobId);
	}

	close(): void {
		this.detail = undefined;
		this.touch();
	}

	job(jobId: string): Job | undefined {
		return this.jobs.find((j) => j.id === jobId);
	}

	private async load(jobId: string): Promise<void> {
		const job = this.job(jobId);
		try {
			if (job?.sessionId) {
				const snapshot = await this.context.client.call("job_transcript", { jobId });
				if (this.detail?.jobId !== jobId) return;
				const transcript = new Transcript(snapshot.sessionId);
				transcript.load({ messages: snapshot.messages, streaming: snapshot.streaming, seq: snapshot.seq, running: snapshot.running });
				this.detail = { ...this.detail, transcript };
			}
			if (job && FINISHED.has(job.status)) {
				const { output } = await this.context.client.call("job_output", { jobId });
				if (this.detail?.jobId === jobId) this.detail = { ...this.detail, output: output ?? "" };
			}
			this.touch();
		} catch (error) {
			this.context.toast(`could not open job ${jobId}: ${failureText(error)}`);
		}
	}

	private onEvent(event: SkiffEvent): void {
		if (event.type === "job_updated") {
			if (event.sessionId !== this.forSession) return;
			const before = this.job(event.job.id);
			this.upsert(event.job);
			// The detail follows the job: its session appears when it starts, its output when it finishes.
			const open = this.detail?.jobId === event.job.id;
			if (open && ((!before?.sessionId && event.job.sessionId) || (FINISHED.has(event.job.status) && !FINISHED.has(before?.status ?? "")))) {
				void this.load(event.job.id);
			}
			return;
		}
		const transcript = this.detail?.transcript;
		if (transcript && event.sessionId === transcript.sessionId && transcript.apply(event)) this.touch();
	}

	private upsert(job: Job): void {
		const at = this.jobs.findIndex((j) => j.id === job.id);
		this.jobs = at < 0 ? [job, ...this.jobs] : this.jobs.map((j, i) => (i === at ? job : j));
		this.touch();
	}

	private touch(): void {
		this.version++;
		this.context.changed();
	}
}
