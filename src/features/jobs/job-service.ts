/**
 * Subagent jobs: a session delegates tasks (the `task` tool, or `task_spawn`) and each becomes a job, run by a
 * real child session of the runtime (recorded like any session, with its parent's live memory) as the agent
 * its definition describes. A job delivers its result once (`yield`, or its last reply, marked so); results
 * reach the spawning session as hidden context plus a visible card and wake it when idle. Limits: jobs
 * running at once, nesting depth, turns and time per job, records kept. Records are durable (JobStore).
 */
import { randomBytes } from "node:crypto";
import type { LoadedSession } from "../../agent/runtime-manager.js";
import type { AgentProfile, DeliveredMessage, JsonObject, RuntimeEvent, SessionObserver, SessionRecordedAs } from "../../agent/types.js";
import { CodedError } from "../../shared/errors.js";
import { redactSecrets } from "../../shared/redact.js";
import { boundText } from "../../agent/feature-tool.js";
import { type AgentDefinition, type CatalogEntry, TASK_AGENT } from "./definitions.js";
import { jobUpdatedEvent } from "./events.js";
import type { JobStore } from "./job-store.js";
import { FINISHED_STATUSES, type Job, type JobLimits, type JobStatus, OUTPUT_PREVIEW_CHARS, type TaskArgs } from "./schemas.js";
import { createTaskTool, createYieldTool } from "./tools.js";

/** The custom message types of a delivered result: hidden context for the model, and the card clients show. */
export const JOB_RESULT_TYPE = "job_result";
export const JOB_CARD_TYPE = "job_card";
/**
 * Tells the model that a result came from the child's last reply because it never called `yield`. Only the model
 * reads it (in the hidden result): the job's output is the reply itself, and `yielded: false` says the rest.
 */
export const NO_YIELD_NOTE = "[The job ended without calling yield: this is its last reply.]";

/** What the jobs need of the runtime manager. */
export interface JobRuntime {
	create(options: { parentSessionId: string; personaRoot?: string; profile: AgentProfile; cwd?: string; recordAs?: SessionRecordedAs }): Promise<LoadedSession>;
	get(sessionId: string): Promise<LoadedSession>;
	peek(sessionId: string): LoadedSession | undefined;
	observe(observer: SessionObserver): () => void;
	readonly shuttingDown: boolean;
}

/** Personas as agents (the personas feature): found by name, given their continuity, their runs archived. */
export interface PersonaAgents {
	resolve(name: string, cwd: string): { definition: AgentDefinition; root: string } | undefined;
	/** What the persona's newest runs said, for its next run's system prompt (undefined: none); read off the event loop. */
	continuity(root: string): Promise<string | undefined>;
	/** Keeps a finished run's transcript under the persona's root (copied in the background). */
	archive(root: string, jobId: string, sessionFile: string | undefined): Promise<void>;
	/** Personas as catalog rows. */
	catalog(cwd: string): CatalogEntry[];
}

export interface JobServiceOptions {
	runtime: JobRuntime;
	store: Pick<JobStore, "load" | "save" | "saveOutput" | "output" | "forget">;
	/** Publishes an event on a session's stream. */
	publish(sessionId: string, event: RuntimeEvent): void;
	limits(): JobLimits;
	/** The agent catalog for a working directory. */
	catalog(cwd: string): CatalogEntry[];
	personas?: PersonaAgents;
	warn(line: string): void;
	now?: () => number;
}

/** A job while it is queued or running. */
/** The kind a job's child session is recorded as (SessionSummary.kind). */
export const JOB_SESSION_KIND = "job";

interface Run {
	job: Job;
	definition: AgentDefinition;
	personaRoot?: string;
	/** What the child is told. */
	prompt: string;
	/** Where the child works (default: the parent's directory). */
	cwd?: string;
	/** Its result is not delivered to the parent session: the feature that spawned it watches it instead. */
	quiet?: boolean;
	/** What the child session is recorded as, when not a job's own (a workflow's agent). */
	recordAs?: SessionRecordedAs;
	session?: LoadedSession;
	timer?: NodeJS.Timeout;
	cancelRequested?: string;
	limitHit?: string;
	yielded?: string;
}

export class JobService {
	private readonly jobs = new Map<string, Job>();
	private readonly runs = new Map<string, Run>();
	/** The job each child session runs, by session id (finished jobs too: nesting depth outlives a run). */
	private readonly jobBySession = new Map<string, string>();
	/** Results waiting to reach their session (it was busy), by session id. */
	private readonly pending = new Map<string, DeliveredMessage[]>();
	private readonly stopObserving: () => void;
	private readonly watchers = new Set<(job: Job) => void>();

	/** Personas as agents, once the personas feature has plugged them in (see usePersonas). */
	private personas: PersonaAgents | undefined;

	constructor(private readonly options: JobServiceOptions) {
		this.personas = options.personas;
		for (const job of options.store.load(this.timestamp(), options.warn)) this.remember(job);
		this.stopObserving = options.runtime.observe((sessionId, signal) => {
			if (signal.kind === "event") this.onEvent(sessionId, signal.event);
			else if (signal.reason !== "shutdown") this.onUnloaded(sessionId);
		});
	}

	/** Makes personas agents of every catalog: the personas feature plugs them in when it starts. */
	usePersonas(personas: PersonaAgents): void {
		this.personas = personas;
	}

	/** The agents a session in `cwd` may spawn: personas, then definitions (with the broken ones and their errors). */
	catalog(cwd: string): CatalogEntry[] {
		return [...(this.personas?.catalog(cwd) ?? []), ...this.options.catalog(cwd)];
	}

	limits(): JobLimits {
		return this.options.limits();
	}

	/** The `task` tool of a top-level session. */
	taskTool(sessionId: () => string) {
		return createTaskTool((args) => this.spawn(sessionId(), args));
	}

	/**
	 * Creates the jobs of one task or a batch for a session, queued at once (nothing is created when any task
	 * names an unknown or broken agent, or a limit is reached), and starts as many as may run.
	 */
	async spawn(parentSessionId: string, args: TaskArgs): Promise<Job[]> {
		const items = taskItems(args);
		const parent = await this.options.runtime.get(parentSessionId);
		const limits = this.options.limits();
		const depth = this.depthOf(parent.id) + 1;
		if (depth > limits.maxDepth) {
			throw new CodedError("limit", `Jobs may nest ${limits.maxDepth} level${limits.maxDepth === 1 ? "" : "s"} deep (jobs.maxDepth): session ${parent.id} is a job at the deepest level and cannot spawn jobs`);
		}
		const resolved = items.map((item) => this.resolveAgent(item.agent ?? TASK_AGENT.name, parent.handle.cwd));
		this.makeRoom(items.length, limits.maxKept);
		const runs = items.map((item, index): Run => {
			const { definition, personaRoot } = resolved[index]!;
			const job = this.newJob(parent.id, depth, { agent: definition.name, persona: Boolean(personaRoot), task: item.task, description: item.description });
			const prompt = args.context ? `${args.context}\n\n${item.task}` : item.task;
			return { job, definition, personaRoot, prompt };
		});
		this.enqueue(runs);
		return runs.map((run) => ({ ...run.job }));
	}

	/**
	 * Spawns one job for another feature (workflows): an agent given as a definition, an optional working
	 * directory, and no delivery of the result to the parent session (the feature watches the job instead).
	 */
	async spawnQuiet(
		parentSessionId: string,
		item: { definition: AgentDefinition; task: string; description?: string; cwd?: string; recordAs?: SessionRecordedAs },
	): Promise<Job> {
		const parent = await this.options.runtime.get(parentSessionId);
		const limits = this.options.limits();
		const depth = this.depthOf(parent.id) + 1;
		if (depth > limits.maxDepth) throw new CodedError("limit", `Jobs may nest ${limits.maxDepth} levels deep (jobs.maxDepth): session ${parent.id} cannot spawn jobs`);
		this.makeRoom(1, limits.maxKept);
		const job = this.newJob(parent.id, depth, { agent: item.definition.name, task: item.task, description: item.description });
		this.enqueue([{ job, definition: item.definition, prompt: item.task, cwd: item.cwd, quiet: true, recordAs: item.recordAs }]);
		return { ...job };
	}

	/** The record of a job just spawned (by either path): queued, with a fresh id and no activity yet. */
	private newJob(parentSessionId: string, depth: number, item: { agent: string; persona?: boolean; task: string; description?: string }): Job {
		return {
			id: `job-${randomBytes(6).toString("hex")}`,
			agent: item.agent,
			...(item.persona ? { persona: true } : {}),
			task: item.task,
			...(item.description ? { description: item.description } : {}),
			parentSessionId,
			depth,
			status: "queued",
			createdAt: this.timestamp(),
			activity: { turns: 0, tokens: 0 },
		};
	}

	/** Keeps new runs (saved before anyone hears of them), announces their jobs and starts as many as may run. */
	private enqueue(runs: Run[]): void {
		for (const run of runs) {
			this.remember(run.job);
			this.runs.set(run.job.id, run);
		}
		this.save();
		for (const run of runs) this.announce(run.job);
		this.pump();
	}

	/** Calls `listener` with every change of every job (a copy); returns the way to stop. */
	watch(listener: (job: Job) => void): () => void {
		this.watchers.add(listener);
		return () => this.watchers.delete(listener);
	}

	/** Jobs spawned by the session and, transitively, by its jobs; newest first. */
	list(sessionId: string): Job[] {
		const sessions = new Set([sessionId]);
		const found: Job[] = [];
		for (const job of this.jobs.values()) {
			// Records are kept oldest first, so a job's parent session is known before its own jobs come.
			if (!sessions.has(job.parentSessionId)) continue;
			found.push(job);
			if (job.sessionId) sessions.add(job.sessionId);
		}
		return found.reverse().map((job) => ({ ...job, activity: { ...job.activity } }));
	}

	job(jobId: string): Job {
		const job = this.jobs.get(jobId);
		if (!job) throw new CodedError("not_found", `No job ${JSON.stringify(jobId.slice(0, 80))}: job_list lists the jobs`);
		return job;
	}

	/** A job's child session, loaded (refused before the job has started). */
	async childSession(jobId: string): Promise<LoadedSession> {
		const job = this.job(jobId);
		if (!job.sessionId) throw new CodedError("conflict", `Job ${job.id} has not started yet: it has no session`);
		return this.options.runtime.get(job.sessionId);
	}

	/** A finished job's whole output (undefined while it runs, or when it produced none). */
	output(jobId: string): string | undefined {
		const job = this.job(jobId);
		return FINISHED_STATUSES.has(job.status) ? this.options.store.output(job.id, this.options.warn) : undefined;
	}

	/**
	 * Cancels jobs and the jobs they spawned: a queued one at once, a running one by stopping its child (it is
	 * `cancelled` once the run has ended). Unknown ids fail the whole call. Returns the ids being cancelled.
	 */
	cancel(jobIds: string[]): string[] {
		for (const id of jobIds) this.job(id);
		const cancelled: string[] = [];
		const visit = (id: string) => {
			const run = this.runs.get(id);
			if (!run || run.cancelRequested) return;
			run.cancelRequested = "Cancelled";
			cancelled.push(id);
			if (run.job.sessionId) for (const child of this.jobs.values()) if (child.parentSessionId === run.job.sessionId) visit(child.id);
			if (run.job.status === "queued") this.finish(run, "cancelled", { error: "Cancelled before it started" });
			else void run.session?.handle.abort().catch(() => undefined);
		};
		for (const id of jobIds) visit(id);
		return cancelled;
	}

	/** Unfinished jobs of a session (for cancelling all of them). */
	unfinished(sessionId: string): string[] {
		return this.list(sessionId)
			.filter((job) => !FINISHED_STATUSES.has(job.status))
			.map((job) => job.id);
	}

	/** Stops observing and timers; jobs still running stay recorded as running and are marked interrupted on the next start. */
	dispose(): void {
		this.stopObserving();
		for (const run of this.runs.values()) clearTimeout(run.timer);
	}

	private resolveAgent(name: string, cwd: string): { definition: AgentDefinition; personaRoot?: string } {
		const persona = this.personas?.resolve(name, cwd);
		if (persona) return { definition: persona.definition, personaRoot: persona.root };
		const entry = this.options.catalog(cwd).find((e) => e.name === name);
		if (!entry) throw new CodedError("not_found", `Unknown agent ${JSON.stringify(name)}: job_list lists the agents and personas`);
		if (entry.error !== undefined) throw new CodedError("invalid_command", `Agent ${name} cannot be used: ${entry.file}: ${entry.error}`);
		return { definition: entry };
	}

	/** Forgets the oldest finished jobs until `count` more fit; refuses when unfinished ones fill every place. */
	private makeRoom(count: number, maxKept: number): void {
		const finished = [...this.jobs.values()].filter((job) => FINISHED_STATUSES.has(job.status));
		const excess = this.jobs.size + count - maxKept;
		if (excess > finished.length) {
			throw new CodedError("limit", `${this.jobs.size - finished.length} jobs are unfinished and at most ${maxKept} are kept (jobs.maxKept): wait for some to finish or cancel them`);
		}
		for (const job of finished.slice(0, Math.max(0, excess))) {
			this.jobs.delete(job.id);
			this.options.store.forget(job.id);
		}
	}

	private depthOf(sessionId: string): number {
		const jobId = this.jobBySession.get(sessionId);
		return jobId ? (this.jobs.get(jobId)?.depth ?? 0) : 0;
	}

	private pump(): void {
		const { maxConcurrency } = this.options.limits();
		let running = [...this.runs.values()].filter((run) => run.job.status === "running").length;
		for (const run of this.runs.values()) {
			if (running >= maxConcurrency) break;
			if (run.job.status !== "queued") continue;
			running++;
			void this.start(run);
		}
	}

	private async start(run: Run): Promise<void> {
		const { job, definition } = run;
		job.status = "running";
		job.startedAt = this.timestamp();
		this.save();
		this.announce(job);
		const limits = this.options.limits();
		try {
			const continuity = run.personaRoot ? await this.personas?.continuity(run.personaRoot) : undefined;
			// A cancel that came while the continuity was read: the job ends as one cancelled before a session existed.
			if (run.cancelRequested) return this.finish(run, "cancelled", { error: "Cancelled before it started" });
			const systemPrompt = [definition.systemPrompt, continuity].filter(Boolean).join("\n\n");
			const tools = [
				createYieldTool((text) => {
					if (run.yielded !== undefined) return false;
					run.yielded = text;
					return true;
				}),
				...(job.depth < limits.maxDepth ? [createTaskTool((args) => this.spawn(run.session!.id, args))] : []),
			];
			const profile: AgentProfile = {
				systemPrompt,
				tools,
				// The runtime stops the child at this limit, over all its runs, before another model call (run-bound.ts).
				maxTurns: definition.maxTurns ?? limits.maxTurns,
				...(definition.tools ? { coreTools: definition.tools } : {}),
				...(definition.model ? { model: definition.model } : {}),
				...(definition.thinking ? { thinkingLevel: definition.thinking } : {}),
			};
			// Recorded as what it is, so lists tell it from a user's session (and nest it under its parent), restarts too.
			const recordAs = run.recordAs ?? { kind: JOB_SESSION_KIND, ownerId: job.id };
			const session = await this.options.runtime.create({
				parentSessionId: job.parentSessionId,
				personaRoot: run.personaRoot,
				profile,
				recordAs,
				...(run.cwd ? { cwd: run.cwd } : {}),
			});
			run.session = session;
			job.sessionId = session.id;
			this.jobBySession.set(session.id, job.id);
			this.save();
			this.announce(job);
			if (run.cancelRequested) return this.finish(run, "cancelled", { error: "Cancelled before it started" });
			const seconds = definition.timeoutSeconds ?? limits.timeoutSeconds;
			run.timer = setTimeout(() => {
				run.limitHit = `It ran longer than ${seconds} s (its time limit)`;
				void session.handle.abort().catch(() => undefined);
			}, seconds * 1000);
			run.timer.unref();
			await session.handle.prompt(run.prompt);
		} catch (error) {
			this.finish(run, "failed", { error: `It could not start: ${redactSecrets(error instanceof Error ? error.message : String(error))}` });
		}
	}

	private onEvent(sessionId: string, event: RuntimeEvent): void {
		if (event.type === "agent_end" && this.pending.has(sessionId)) queueMicrotask(() => void this.flush(sessionId));
		const jobId = this.jobBySession.get(sessionId);
		const run = jobId ? this.runs.get(jobId) : undefined;
		if (!run || run.job.status !== "running") return;
		const activity = run.job.activity;
		switch (event.type) {
			case "tool_execution_start":
				activity.tool = String(event.toolName ?? "");
				delete activity.waiting;
				this.announce(run.job);
				break;
			case "tool_execution_end":
				delete activity.tool;
				this.announce(run.job);
				break;
			case "turn_start":
				delete activity.waiting;
				break;
			case "turn_end":
				activity.turns++;
				activity.tokens += tokensOf(event.message);
				if (run.yielded !== undefined) void run.session?.handle.abort().catch(() => undefined); // yield ends the run
				this.announce(run.job);
				break;
			case "run_stopped":
				// The runtime stopped the child at a turn limit (the job's own, or the per-run one): the job fails, saying which.
				run.limitHit ??= String(event.message);
				break;
			case "agent_end":
				this.runEnded(run);
				break;
		}
	}

	private onUnloaded(sessionId: string): void {
		const jobId = this.jobBySession.get(sessionId);
		const run = jobId ? this.runs.get(jobId) : undefined;
		if (run && run.job.status === "running") this.finish(run, "failed", { error: "Its session was unloaded while it ran" });
	}

	/** A child's run ended: the job finishes, unless it waits for results of jobs it spawned. */
	private runEnded(run: Run): void {
		if (this.options.runtime.shuttingDown) return this.finish(run, "interrupted", { error: "The service stopped while the job ran" });
		if (run.cancelRequested) return this.finish(run, "cancelled", { error: run.cancelRequested });
		if (run.yielded !== undefined) return this.finish(run, "completed", { output: run.yielded, yielded: true });
		if (run.limitHit) return this.finish(run, "failed", { error: run.limitHit });
		const sessionId = run.session!.id;
		if (this.pending.has(sessionId) || this.unfinished(sessionId).length > 0) {
			run.job.activity.waiting = true;
			this.announce(run.job);
			return;
		}
		const last = lastAssistant(run.session!.handle.messages());
		if (last?.stopReason === "error") return this.finish(run, "failed", { error: redactSecrets(String(last.errorMessage ?? "The model call failed")) });
		if (last?.stopReason === "aborted") return this.finish(run, "cancelled", { error: "Its run was aborted" });
		this.finish(run, "completed", { output: textOf(last), yielded: false });
	}

	private finish(run: Run, status: JobStatus, result: { output?: string; yielded?: boolean; error?: string }): void {
		const { job } = run;
		if (FINISHED_STATUSES.has(job.status)) return;
		clearTimeout(run.timer);
		this.runs.delete(job.id);
		job.status = status;
		job.finishedAt = this.timestamp();
		delete job.activity.tool;
		delete job.activity.waiting;
		if (result.error) job.error = result.error;
		if (result.yielded !== undefined) job.yielded = result.yielded;
		if (result.output !== undefined) {
			const output = boundText(result.output);
			job.outputPreview = [...output].slice(0, OUTPUT_PREVIEW_CHARS).join("");
			this.tryWrite(() => this.options.store.saveOutput(job.id, output));
		}
		if (run.personaRoot && run.session) {
			const root = run.personaRoot;
			const file = run.session.handle.sessionFile;
			this.tryWrite(() => this.personas?.archive(root, job.id, file));
		}
		this.save();
		this.announce(job);
		if (!this.options.runtime.shuttingDown) {
			if (!run.quiet) this.queueDelivery(job, result.output);
			this.pump();
		}
	}

	/** Queues a finished job's result for its parent session and delivers it when that session is idle. */
	private queueDelivery(job: Job, output: string | undefined): void {
		const outcome = job.status === "completed" ? `${job.yielded === false ? `${NO_YIELD_NOTE}\n` : ""}${boundText(output ?? "")}` : `${job.status}: ${job.error ?? ""}`;
		const summary = firstLine(job.status === "completed" ? (job.outputPreview ?? "") : (job.error ?? ""));
		const messages = this.pending.get(job.parentSessionId) ?? [];
		messages.push(
			{
				customType: JOB_RESULT_TYPE,
				display: false,
				content: `Result of job ${job.id} (agent ${job.agent}, ${job.status}) for the task: ${firstLine(job.task)}\n\n${outcome}`,
				details: { jobId: job.id },
			},
			{
				customType: JOB_CARD_TYPE,
				display: true,
				content: `Job ${job.id} (${job.agent}) ${job.status}: ${summary}`,
				// What a client shows: the task's description, the result's first line, and whether it yielded.
				details: {
					jobId: job.id,
					agent: job.agent,
					status: job.status,
					summary,
					...(job.description ? { description: job.description } : {}),
					...(job.yielded !== undefined ? { yielded: job.yielded } : {}),
				},
			},
		);
		this.pending.set(job.parentSessionId, messages);
		void this.flush(job.parentSessionId);
	}

	private async flush(sessionId: string): Promise<void> {
		const messages = this.pending.get(sessionId);
		if (!messages?.length) return;
		let session: LoadedSession;
		try {
			session = this.options.runtime.peek(sessionId) ?? (await this.options.runtime.get(sessionId));
		} catch (error) {
			this.pending.delete(sessionId);
			this.options.warn(`jobs: results for session ${sessionId} were dropped: ${(error as Error).message}`);
			return;
		}
		if (session.handle.isBusy || this.pending.get(sessionId) !== messages) return; // delivered at the end of its run
		this.pending.delete(sessionId);
		// A job's session is woken only while its job runs (it waits for these results); a finished one just keeps them.
		const ownJob = this.jobBySession.get(sessionId);
		const wake = ownJob === undefined || this.runs.has(ownJob);
		const worthWaking = wake && messages.some((m) => m.customType === JOB_CARD_TYPE && (m.details?.status === "completed" || m.details?.status === "failed"));
		// The card that wakes the session (the last message starts its turn) says so and why, so that a reader of
		// the transcript knows where the turn came from: a finished job, not a message of theirs.
		const cards = messages.filter((m) => m.customType === JOB_CARD_TYPE);
		const delivered = worthWaking ? messages.map((m) => (m === messages.at(-1) ? { ...m, details: { ...m.details, woke: wokeReason(cards.length) } } : m)) : messages;
		try {
			await session.handle.deliver(delivered, { wake: worthWaking });
		} catch (error) {
			if (error instanceof CodedError && error.code === "busy") {
				this.pending.set(sessionId, [...messages, ...(this.pending.get(sessionId) ?? [])]);
				return;
			}
			this.options.warn(`jobs: results for session ${sessionId} could not be delivered: ${(error as Error).message}`);
			return;
		}
		// A job waiting for these results that is not woken has nothing more to do.
		if (!worthWaking && ownJob && this.runs.has(ownJob)) {
			const run = this.runs.get(ownJob)!;
			if (run.job.activity.waiting && !run.session?.handle.isBusy) this.runEnded(run);
		}
	}

	private remember(job: Job): void {
		this.jobs.set(job.id, job);
		if (job.sessionId) this.jobBySession.set(job.sessionId, job.id);
	}

	/** Tells the spawning session and every session above it (a panel follows the top-level one). */
	private announce(job: Job): void {
		const view = { ...job, activity: { ...job.activity } };
		for (const watcher of this.watchers) {
			try {
				watcher({ ...view, activity: { ...view.activity } });
			} catch (error) {
				this.options.warn(`jobs: a watcher failed: ${(error as Error).message}`);
			}
		}
		for (let sessionId: string | undefined = job.parentSessionId, hops = 0; sessionId && hops < 64; hops++) {
			this.options.publish(sessionId, { type: jobUpdatedEvent.type, job: view });
			const parentJob = this.jobBySession.get(sessionId);
			sessionId = parentJob ? this.jobs.get(parentJob)?.parentSessionId : undefined;
		}
	}

	private save(): void {
		this.tryWrite(() => this.options.store.save([...this.jobs.values()]));
	}

	/**
	 * Records are kept in memory whatever happens on disk; a failed write is reported, not thrown into a run (one
	 * that goes on in the background is reported when it fails).
	 */
	private tryWrite(write: () => void | Promise<void> | undefined): void {
		const report = (error: unknown) => this.options.warn(`jobs: ${(error as Error).message}`);
		try {
			const pending = write();
			if (pending instanceof Promise) pending.catch(report);
		} catch (error) {
			report(error);
		}
	}

	private timestamp(): string {
		return new Date(this.options.now?.() ?? Date.now()).toISOString();
	}
}

/** The tasks of the `task` tool's arguments: one, or a batch; exactly one of the two. */
function taskItems(args: TaskArgs): Array<{ task: string; agent?: string; description?: string }> {
	if (args.tasks && args.task !== undefined) throw new CodedError("invalid_command", "Give either `task` (one task) or `tasks` (a batch), not both");
	if (args.tasks) {
		if (args.agent !== undefined || args.description !== undefined) {
			throw new CodedError("invalid_command", "In a batch, `agent` and `description` go in each item of `tasks`");
		}
		return args.tasks;
	}
	if (args.task === undefined) throw new CodedError("invalid_command", "Give `task` (one task) or `tasks` (a batch)");
	if (args.context !== undefined) throw new CodedError("invalid_command", "`context` is shared by the tasks of a batch: use `tasks`, or put it in `task`");
	return [{ task: args.task, agent: args.agent, description: args.description }];
}

function tokensOf(message: unknown): number {
	const usage = (message as { usage?: { input?: number; output?: number } } | undefined)?.usage;
	return (usage?.input ?? 0) + (usage?.output ?? 0);
}

function lastAssistant(messages: JsonObject[]): JsonObject | undefined {
	for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "assistant") return messages[i];
	return undefined;
}

function textOf(message: JsonObject | undefined): string {
	const content = message?.content;
	if (!Array.isArray(content)) return "";
	return content
		.filter((part): part is { type: "text"; text: string } => (part as { type?: unknown }).type === "text")
		.map((part) => part.text)
		.join("\n")
		.trim();
}

/** Why a session was woken by the results it was given (JobCardDetails.woke). */
function wokeReason(results: number): string {
	return results === 1 ? "The agent was idle when this job finished, so it was woken to read the result." : `The agent was idle when these ${results} jobs finished, so it was woken to read their results.`;
}

function firstLine(text: string): string {
	const line = text.trim().split("\n")[0] ?? "";
	return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
