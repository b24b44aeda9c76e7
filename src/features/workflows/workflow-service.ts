/**
 * Workflows: an objective planned by a supervisor agent into a todo plan, whose ready tasks are run as jobs
 * in an isolated git worktree on the branch `skiff/workflow/<id>` (or, with isolation `none`, in the directory
 * itself), each finished task committed there, and the result integrated back into the base checkout without
 * ever leaving it half-merged (see git.ts). Every change of status goes through the pure lifecycle; records
 * are durable, and a workflow the service stopped under is found paused, to be resumed or cancelled.
 *
 * git runs without blocking the event loop, so a command can arrive while another waits for git: the actions
 * on one workflow and the ends of its jobs run one after another (`serially`), and the git steps on one
 * repository do too (`inRepository`: two workflows never integrate into one base at once), just as they did
 * when git held the loop.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { RuntimeEvent, SessionObserver } from "../../agent/types.js";
import { CodedError } from "../../shared/errors.js";
import { redactSecrets } from "../../shared/redact.js";
import { FINISHED_STATUSES, type Job, type JobService, type JobStatus } from "../jobs/index.js";
import { allTasks, EMPTY_PLAN, isSettled, type TodoPlan, type TodoStatus, viewPlan } from "../todo/index.js";
import { workflowUpdatedEvent } from "./events.js";
import {
	addWorktree,
	branchExists,
	commitAll,
	currentBranch,
	deleteBranch,
	diffSummary,
	fastForward,
	headCommit,
	isAncestor,
	mergeIntoWorktree,
	notARepository,
	removeWorktree,
	repositoryRoot,
	uncommittedFiles,
} from "./git.js";
import { allowedActions, checkAction, transition, type WorkflowStep } from "./lifecycle.js";
import { supervisorDefinition, supervisorPrompt, workerDefinition, workerPrompt } from "./prompts.js";
import type { Integration, Isolation, Workflow, WorkflowLimits, WorkflowRecord } from "./schemas.js";
import { SerialQueues } from "./serial.js";
import type { WorkflowStore } from "./workflow-store.js";

/** Most workflows kept (finished ones stay until removed). */
export const MAX_WORKFLOWS = 100;
/** Files named in one error message. */
const FILES_IN_MESSAGE = 10;

export interface WorkflowServiceOptions {
	store: Pick<WorkflowStore, "load" | "save" | "worktreeOf"> & { remove(id: string): void | Promise<void> };
	jobs: Pick<JobService, "spawnQuiet" | "cancel" | "watch">;
	/** The runtime's session signals (the supervisor's tool calls and plan as they happen). */
	observe(observer: SessionObserver): () => void;
	/** The todo plan of a loaded session (the supervisor's), undefined when it has none. */
	planOf(sessionId: string): TodoPlan | undefined;
	/** Sends an event to every loaded session. */
	publish(event: RuntimeEvent): void;
	limits(): WorkflowLimits;
	/** The core tools pi offers (the supervisor gets the read-only ones). */
	knownTools: readonly string[];
	warn(line: string): void;
	now?: () => number;
}

export interface CreateWorkflow {
	name: string;
	objective: string;
	isolation?: Isolation;
}

/** Which workflow a job works for, and as what. */
interface JobRole {
	workflowId: string;
	taskId?: string;
}

export class WorkflowService {
	private readonly records = new Map<string, WorkflowRecord>();
	private readonly roles = new Map<string, JobRole>();
	/** Supervisors by their session id (for their tool calls and plan). */
	private readonly supervisors = new Map<string, string>();
	/** Jobs the workflows stopped themselves (pause, cancel, failure): their end changes nothing more. */
	private readonly stopping = new Set<string>();
	/** Why a supervisor was stopped by a limit, by workflow id. */
	private readonly limitHit = new Map<string, string>();
	/** Tasks whose job is being spawned, as `<workflow>:<task>`. */
	private readonly spawning = new Set<string>();
	/** Workflows being created (not yet in `records`), counted against MAX_WORKFLOWS. */
	private creating = 0;
	/** Per workflow id: its actions and its jobs' ends, one at a time. */
	private readonly workflowQueues = new SerialQueues();
	/** Per base repository: the git steps of every workflow on it, one sequence at a time. */
	private readonly repositoryQueues = new SerialQueues();
	private readonly unsubscribe: Array<() => void>;

	constructor(private readonly options: WorkflowServiceOptions) {
		for (const record of options.store.load(options.warn)) {
			this.records.set(record.id, record);
			this.recover(record);
		}
		this.unsubscribe = [
			options.jobs.watch((job) => this.onJob(job)),
			options.observe((sessionId, signal) => {
				if (signal.kind === "event") this.onSupervisorEvent(sessionId, signal.event);
			}),
		];
	}

	limits(): WorkflowLimits {
		return this.options.limits();
	}

	/** Every workflow, newest first. */
	list(): Workflow[] {
		return [...this.records.values()].reverse().map(view);
	}

	get(id: string): Workflow {
		return view(this.record(id));
	}

	/**
	 * Creates a workflow for a session working in `cwd` and starts planning it. Refused, with nothing created,
	 * when `cwd` is not in a git repository (isolation `worktree`), the repository has no commit, or its
	 * checkout has uncommitted changes.
	 */
	async create(sessionId: string, cwd: string, input: CreateWorkflow): Promise<Workflow> {
		const name = input.name.trim();
		if (!name) throw new CodedError("invalid_command", "A workflow needs a name");
		if (!input.objective.trim()) throw new CodedError("invalid_command", "A workflow needs an objective");
		if (this.records.size + this.creating >= MAX_WORKFLOWS) {
			throw new CodedError("limit", `At most ${MAX_WORKFLOWS} workflows are kept: remove finished ones (workflow_remove) first`);
		}
		this.creating++;
		try {
			return await this.createNow(sessionId, cwd, input, name);
		} finally {
			this.creating--;
		}
	}

	private async createNow(sessionId: string, cwd: string, input: CreateWorkflow, name: string): Promise<Workflow> {
		const isolation = input.isolation ?? "worktree";
		const id = `wf-${randomBytes(6).toString("hex")}`;
		const now = this.timestamp();
		const record: WorkflowRecord = {
			id,
			name,
			objective: input.objective,
			isolation,
			sessionId,
			baseDir: cwd,
			status: "queued",
			planned: false,
			plan: EMPTY_PLAN,
			workers: [],
			createdAt: now,
			updatedAt: now,
		};
		if (isolation === "worktree") {
			const root = await repositoryRoot(cwd);
			if (!root) throw notARepository(cwd);
			record.baseDir = root;
			record.git = await this.inRepository(root, () => this.createWorktree(root, id));
		}
		try {
			this.options.store.save(record);
		} catch (error) {
			await this.discard(record);
			throw error;
		}
		this.records.set(id, record);
		this.announce(record);
		void this.plan(record);
		return view(record);
	}

	/**
	 * The new workflow's branch and worktree in the repository `root`, from its checked-out commit; refused
	 * (nothing made) without a commit, with uncommitted changes or when the branch exists.
	 */
	private async createWorktree(root: string, id: string): Promise<NonNullable<WorkflowRecord["git"]>> {
		const head = await headCommit(root);
		if (!head) throw new CodedError("invalid_command", `The repository ${root} has no commit yet: a workflow's branch starts from one, so commit first`);
		const dirty = await uncommittedFiles(root);
		if (dirty.length) {
			throw new CodedError(
				"conflict",
				`The base checkout ${root} has uncommitted changes (${listFiles(dirty)}): commit or stash them first, so that the workflow's result can be integrated back`,
			);
		}
		const branch = `skiff/workflow/${id}`;
		if (await branchExists(root, branch)) throw new CodedError("conflict", `The branch ${branch} already exists`);
		const baseBranch = await currentBranch(root);
		const worktree = this.options.store.worktreeOf(id);
		try {
			mkdirSync(dirname(worktree), { recursive: true, mode: 0o700 });
			await addWorktree(root, worktree, branch, head);
		} catch (error) {
			// A git stopped half-way (a timeout) may have made the branch and the worktree: they go, as the folder does.
			await this.removeGitOf(root, { branch, worktree }).catch(() => undefined);
			await this.options.store.remove(id);
			throw new CodedError("failed", `The workflow's worktree could not be created: ${(error as Error).message}`);
		}
		return { branch, worktree, baseCommit: head, ...(baseBranch ? { baseBranch } : {}) };
	}

	/** Stops its jobs; tasks in progress go back to pending and start again on resume. */
	pause(id: string): Promise<Workflow> {
		return this.serially(id, () => {
			const record = this.record(id);
			checkAction(record.status, "pause");
			this.stopJobs(record);
			this.move(record, "pause", "Paused: workflow_resume goes on, workflow_cancel gives up");
			return view(record);
		});
	}

	/** Goes on: plans again when the plan was not finished, else runs the tasks still open. */
	resume(id: string): Promise<Workflow> {
		return this.serially(id, async () => {
			const record = this.record(id);
			checkAction(record.status, "resume");
			this.move(record, "resume");
			if (record.status === "planning") void this.plan(record);
			else await this.pump(record);
			return view(record);
		});
	}

	cancel(id: string): Promise<Workflow> {
		return this.serially(id, () => {
			const record = this.record(id);
			checkAction(record.status, "cancel");
			this.stopJobs(record);
			this.move(record, "cancel", "Cancelled: its branch and worktree stay until workflow_remove");
			return view(record);
		});
	}

	/** Integrates what is done (a paused workflow's finished tasks) or tries again after a conflict. */
	integrate(id: string): Promise<Workflow> {
		return this.serially(id, async () => {
			const record = this.record(id);
			checkAction(record.status, "integrate");
			await this.integrateNow(record, "integrate");
			return view(record);
		});
	}

	/**
	 * Removes a finished workflow: its record and worktree, and its branch when the base took it (`branchKept`
	 * names the branch otherwise, so no work is lost).
	 */
	remove(id: string): Promise<{ workflowId: string; branchKept?: string }> {
		return this.serially(id, async () => {
			const record = this.record(id);
			checkAction(record.status, "remove");
			let branchKept: string | undefined;
			const git = record.git;
			if (git) {
				try {
					const deleted = await this.inRepository(record.baseDir, async () => {
						await removeWorktree(record.baseDir, git.worktree);
						return deleteBranch(record.baseDir, git.branch, { onlyIfMerged: true });
					});
					if (!deleted) branchKept = git.branch;
				} catch (error) {
					this.options.warn(`workflows: the worktree of ${id} could not be removed through git (${(error as Error).message}); its folder is deleted`);
					branchKept = git.branch;
				}
			}
			await this.options.store.remove(id);
			this.records.delete(id);
			this.options.publish({ type: workflowUpdatedEvent.type, workflow: view(record), removed: true });
			return { workflowId: id, ...(branchKept ? { branchKept } : {}) };
		});
	}

	dispose(): void {
		for (const stop of this.unsubscribe) stop();
	}

	/** After a restart: a workflow that was moving is paused where it was, its unfinished jobs marked interrupted. */
	private recover(record: WorkflowRecord): void {
		if (!["queued", "planning", "running", "integrating"].includes(record.status)) return;
		const was = record.status;
		for (const worker of record.workers) {
			if (FINISHED_STATUSES.has(worker.status as JobStatus)) continue;
			markInterrupted(worker);
			worker.error = "The service stopped while it ran";
		}
		if (record.supervisor && !FINISHED_STATUSES.has(record.supervisor.status as JobStatus)) markInterrupted(record.supervisor);
		record.plan = reopenStarted(record.plan);
		record.status = transition(record.status, "interrupt");
		record.reason = `The service stopped while it was ${was}: workflow_resume goes on${was === "integrating" ? " (or workflow_integrate)" : ""}, workflow_cancel gives up`;
		record.updatedAt = this.timestamp();
		this.save(record);
	}

	/** Starts (or restarts) the supervisor. */
	private async plan(record: WorkflowRecord): Promise<void> {
		if (record.status === "queued") this.move(record, "plan");
		record.plan = EMPTY_PLAN;
		record.planned = false;
		this.limitHit.delete(record.id);
		try {
			const job = await this.options.jobs.spawnQuiet(record.sessionId, {
				definition: supervisorDefinition(this.options.limits(), this.options.knownTools),
				task: supervisorPrompt(record),
				description: `Plan workflow ${record.name}`,
				cwd: workDir(record),
			});
			this.roles.set(job.id, { workflowId: record.id });
			record.supervisor = { jobId: job.id, status: job.status, turns: 0, toolCalls: 0, failures: 0 };
			if (record.status !== "planning") return this.stop(job.id); // paused or cancelled meanwhile
			this.save(record);
			this.announce(record);
		} catch (error) {
			if (record.status === "planning") this.fail(record, `The supervisor could not start: ${messageOf(error)}`);
		}
	}

	private onJob(job: Job): void {
		const role = this.roles.get(job.id);
		const record = role && this.records.get(role.workflowId);
		if (!role || !record) return;
		const finished = FINISHED_STATUSES.has(job.status);
		if (role.taskId === undefined) {
			const supervisor = record.supervisor;
			if (!supervisor || supervisor.jobId !== job.id) return;
			supervisor.status = job.status;
			supervisor.turns = job.activity.turns;
			if (job.sessionId) {
				supervisor.sessionId = job.sessionId;
				this.supervisors.set(job.sessionId, record.id);
			}
			if (job.activity.tool) supervisor.tool = job.activity.tool;
			else delete supervisor.tool;
		} else {
			const worker = record.workers.find((w) => w.jobId === job.id);
			if (!worker) return;
			worker.status = job.status;
			if (job.sessionId) worker.sessionId = job.sessionId;
			if (job.activity.tool) worker.tool = job.activity.tool;
			else delete worker.tool;
			if (job.error) worker.error = job.error;
		}
		if (!finished) return this.announce(record);
		// What the end of a job changes waits for the workflow's actions and other ends before it (a commit may be running).
		const taskId = role.taskId;
		void this.serially(record.id, async () => {
			if (this.records.get(record.id) !== record) return; // removed meanwhile
			if (taskId === undefined) await this.supervisorEnded(record, job);
			else await this.workerEnded(record, taskId, job);
			this.save(record);
			this.announce(record);
		}).catch((error) => this.options.warn(`workflows: the end of job ${job.id} of ${record.id} could not be handled: ${messageOf(error)}`));
	}

	/** The supervisor's tool calls count against its limits; its plan shows as it makes it. */
	private onSupervisorEvent(sessionId: string, event: RuntimeEvent): void {
		const id = this.supervisors.get(sessionId);
		const record = id ? this.records.get(id) : undefined;
		const supervisor = record?.supervisor;
		if (!record || !supervisor || supervisor.sessionId !== sessionId || record.status !== "planning") return;
		const limits = this.options.limits();
		if (event.type === "tool_execution_start") {
			supervisor.toolCalls++;
			if (supervisor.toolCalls > limits.supervisorMaxToolCalls) this.stopSupervisor(record, `it made more than ${limits.supervisorMaxToolCalls} tool calls (workflows.supervisorMaxToolCalls)`);
		} else if (event.type === "tool_execution_end") {
			supervisor.failures = event.isError === true ? supervisor.failures + 1 : 0;
			if (supervisor.failures >= limits.supervisorMaxFailures) this.stopSupervisor(record, `${supervisor.failures} of its tool calls failed in a row (workflows.supervisorMaxFailures)`);
		} else if (event.type === "todo_updated") {
			const plan = this.options.planOf(sessionId);
			if (plan) record.plan = plan;
			this.announce(record);
		}
	}

	private stopSupervisor(record: WorkflowRecord, why: string): void {
		if (this.limitHit.has(record.id) || !record.supervisor) return;
		this.limitHit.set(record.id, why);
		this.options.jobs.cancel([record.supervisor.jobId]);
	}

	private async supervisorEnded(record: WorkflowRecord, job: Job): Promise<void> {
		if (this.stopping.delete(job.id) || record.status !== "planning") return;
		const limit = this.limitHit.get(record.id);
		if (limit) return this.fail(record, `The supervisor was stopped: ${limit}`);
		if (job.status !== "completed") {
			const why = job.error ? `: ${job.error}` : "";
			return this.fail(record, `The supervisor ${job.status === "failed" ? "failed" : `was ${job.status}`}${why}`);
		}
		const plan = (job.sessionId ? this.options.planOf(job.sessionId) : undefined) ?? record.plan;
		if (allTasks(plan).filter((task) => !isSettled(task.status)).length === 0) {
			return this.fail(record, "The supervisor made no plan with open tasks (it must call the todo tool with op init)");
		}
		// The workflow schedules the tasks itself: the plan's ready pointer started one, which no job runs yet.
		record.plan = reopenStarted(plan);
		record.planned = true;
		this.move(record, "planned");
		await this.pump(record);
	}

	/** Starts jobs on ready tasks up to the limit; integrates once every task is settled. */
	private async pump(record: WorkflowRecord): Promise<void> {
		if (record.status !== "running") return;
		const tasks = viewPlan(record.plan).flatMap((phase) => phase.tasks);
		if (tasks.every((task) => isSettled(task.status))) return this.integrateNow(record, "tasks_done");
		const busy = new Set(record.workers.filter((w) => !FINISHED_STATUSES.has(w.status as JobStatus)).map((w) => w.taskId));
		for (const key of this.spawning) if (key.startsWith(`${record.id}:`)) busy.add(key.slice(record.id.length + 1));
		let free = this.options.limits().maxWorkers - busy.size;
		for (const task of tasks) {
			if (free <= 0) break;
			if (!task.ready || busy.has(task.id)) continue;
			free--;
			void this.startTask(record, task.id);
		}
	}

	private async startTask(record: WorkflowRecord, taskId: string): Promise<void> {
		const key = `${record.id}:${taskId}`;
		this.spawning.add(key);
		try {
			const task = allTasks(record.plan).find((t) => t.id === taskId)!;
			const job = await this.options.jobs.spawnQuiet(record.sessionId, {
				definition: workerDefinition(),
				task: workerPrompt(record, record.plan, task),
				description: `${record.name}: ${task.id} ${task.content}`.slice(0, 200),
				cwd: workDir(record),
			});
			this.roles.set(job.id, { workflowId: record.id, taskId });
			record.workers.push({ taskId, jobId: job.id, status: job.status });
			if (record.status !== "running") return this.stop(job.id);
			record.plan = withStatus(record.plan, taskId, "in_progress");
			this.save(record);
			this.announce(record);
		} catch (error) {
			if (record.status === "running") this.fail(record, `The job for task ${taskId} could not start: ${messageOf(error)}`);
		} finally {
			this.spawning.delete(key);
		}
	}

	private async workerEnded(record: WorkflowRecord, taskId: string, job: Job): Promise<void> {
		if (this.stopping.delete(job.id) || record.status !== "running") return;
		const task = allTasks(record.plan).find((t) => t.id === taskId);
		if (!task) return;
		if (job.status !== "completed") {
			return this.fail(record, `Task ${task.id} "${task.content}" ${job.status === "failed" ? "failed" : `was ${job.status}`}${job.error ? `: ${job.error}` : ""}`);
		}
		const git = record.git;
		if (git) {
			try {
				await this.inRepository(record.baseDir, () => commitAll(git.worktree, `${task.id}: ${task.content}\n\nWorkflow ${record.name} (${record.id}), job ${job.id}`));
			} catch (error) {
				return this.fail(record, `The work of task ${task.id} could not be committed: ${messageOf(error)}`);
			}
		}
		record.plan = withStatus(record.plan, taskId, "completed");
		record.updatedAt = this.timestamp();
		await this.pump(record);
	}

	/**
	 * Takes the branch into the base: the base's head is merged into the branch inside the worktree (a conflict
	 * is aborted there and reported with its files), then the base fast-forwards to the result.
	 */
	private async integrateNow(record: WorkflowRecord, step: "tasks_done" | "integrate"): Promise<void> {
		this.move(record, step);
		const git = record.git;
		if (!git) {
			record.integration = { method: "none", filesChanged: 0, insertions: 0, deletions: 0, files: [], conflicts: [] };
			return this.move(record, "integrated", "Its jobs worked in the directory itself: there was nothing to integrate");
		}
		// The base's state is read and moved in one sequence no other workflow's git comes between.
		await this.inRepository(record.baseDir, async () => {
			try {
				await commitAll(git.worktree, `Workflow ${record.name} (${record.id}): remaining changes`);
				const branchHead = (await headCommit(git.worktree))!;
				const dirty = await uncommittedFiles(record.baseDir);
				if (dirty.length) {
					return await this.conflicted(record, `The base checkout has uncommitted changes (${listFiles(dirty)}): commit or stash them, then workflow_integrate`, dirty, branchHead);
				}
				const branchNow = await currentBranch(record.baseDir);
				if (git.baseBranch && branchNow !== git.baseBranch) {
					return await this.conflicted(record, `The base checkout is on ${branchNow ?? "a detached HEAD"}, not ${git.baseBranch}: check out ${git.baseBranch}, then workflow_integrate`, [], branchHead);
				}
				const baseHead = (await headCommit(record.baseDir))!;
				const conflicts = await mergeIntoWorktree(git.worktree, baseHead, `Merge ${git.baseBranch ?? baseHead.slice(0, 12)} into ${git.branch}`);
				if (conflicts.length) {
					return await this.conflicted(record, `The base changed the same lines: ${listFiles(conflicts)} conflict. Nothing was merged; resolve it on the branch ${git.branch} (or change the base), then workflow_integrate`, conflicts, branchHead);
				}
				const merged = (await headCommit(git.worktree))!;
				const method = merged === baseHead ? "none" : (await isAncestor(record.baseDir, baseHead, branchHead)) ? "fast-forward" : "merge";
				const summary = await diffSummary(record.baseDir, baseHead, merged);
				if (merged !== baseHead) await fastForward(record.baseDir, merged);
				record.integration = { method, ...summary, conflicts: [], commit: await headCommit(record.baseDir) };
				this.move(record, "integrated", undefined);
			} catch (error) {
				await this.conflicted(record, `Integration failed and nothing was merged: ${messageOf(error)}`, [], undefined);
			}
		});
	}

	private async conflicted(record: WorkflowRecord, reason: string, conflicts: string[], branchHead: string | undefined): Promise<void> {
		let summary: Omit<Integration, "conflicts" | "method" | "commit"> = { filesChanged: 0, insertions: 0, deletions: 0, files: [] };
		if (record.git && branchHead) {
			try {
				summary = await diffSummary(record.git.worktree, record.git.baseCommit, branchHead);
			} catch {
				// the summary is a courtesy; the conflict is what matters
			}
		}
		record.integration = { ...summary, conflicts };
		this.move(record, "conflict", reason);
	}

	private fail(record: WorkflowRecord, reason: string): void {
		this.stopJobs(record);
		this.move(record, "fail", redactSecrets(reason));
	}

	/** Stops every unfinished job of the workflow; tasks in progress go back to pending. */
	private stopJobs(record: WorkflowRecord): void {
		const ids = [record.supervisor, ...record.workers].filter((j) => j && !FINISHED_STATUSES.has(j.status as JobStatus)).map((j) => j!.jobId);
		for (const id of ids) this.stop(id);
		record.plan = reopenStarted(record.plan);
	}

	private stop(jobId: string): void {
		this.stopping.add(jobId);
		try {
			this.options.jobs.cancel([jobId]);
		} catch {
			this.stopping.delete(jobId); // forgotten by the jobs already
		}
	}

	/** Applies a lifecycle step, records it and tells the clients. */
	private move(record: WorkflowRecord, step: WorkflowStep, reason?: string): void {
		record.status = transition(record.status, step, record.planned);
		if (reason === undefined) delete record.reason;
		else record.reason = reason;
		record.updatedAt = this.timestamp();
		this.save(record);
		this.announce(record);
	}

	private record(id: string): WorkflowRecord {
		const record = this.records.get(id);
		if (!record) throw new CodedError("not_found", `No workflow ${JSON.stringify(id.slice(0, 80))}: workflow_list lists them`);
		return record;
	}

	/** Undoes a creation that could not be recorded: nothing of it stays. */
	private async discard(record: WorkflowRecord): Promise<void> {
		const git = record.git;
		if (git) {
			try {
				await this.inRepository(record.baseDir, () => this.removeGitOf(record.baseDir, git));
			} catch {
				// best effort: the folder goes below either way
			}
		}
		await this.options.store.remove(record.id);
	}

	/** Removes a new workflow's worktree and its branch, merged or not (call inside inRepository). */
	private async removeGitOf(repo: string, git: { branch: string; worktree: string }): Promise<void> {
		await removeWorktree(repo, git.worktree);
		await deleteBranch(repo, git.branch, { onlyIfMerged: false });
	}

	/** Runs `task` after the actions and job ends of workflow `id` queued before it. */
	private serially<T>(id: string, task: () => T | Promise<T>): Promise<T> {
		return this.workflowQueues.run(id, task);
	}

	/** Runs a sequence of git steps on the repository `repo` after the others queued there. */
	private inRepository<T>(repo: string, task: () => Promise<T>): Promise<T> {
		return this.repositoryQueues.run(repo, task);
	}

	private announce(record: WorkflowRecord): void {
		this.options.publish({ type: workflowUpdatedEvent.type, workflow: view(record) });
	}

	/** Records are kept in memory whatever happens on disk; a failed write is reported, not thrown into a run. */
	private save(record: WorkflowRecord): void {
		try {
			this.options.store.save(record);
		} catch (error) {
			this.options.warn(`workflows: ${(error as Error).message}`);
		}
	}

	private timestamp(): string {
		return new Date(this.options.now?.() ?? Date.now()).toISOString();
	}
}

/** A workflow as clients see it. */
export function view(record: WorkflowRecord): Workflow {
	const { plan, ...rest } = record;
	return structuredClone({ ...rest, phases: viewPlan(plan), actions: allowedActions(record.status) });
}

/** Where the workflow's jobs work. */
function workDir(record: WorkflowRecord): string {
	return record.git?.worktree ?? record.baseDir;
}

function withStatus(plan: TodoPlan, taskId: string, status: TodoStatus): TodoPlan {
	return { ...plan, phases: plan.phases.map((phase) => ({ ...phase, tasks: phase.tasks.map((task) => (task.id === taskId ? { ...task, status } : task)) })) };
}

/** Tasks in progress go back to pending (no job runs them any more). */
function reopenStarted(plan: TodoPlan): TodoPlan {
	return { ...plan, phases: plan.phases.map((phase) => ({ ...phase, tasks: phase.tasks.map((task) => (task.status === "in_progress" ? { ...task, status: "pending" as const } : task)) })) };
}

function markInterrupted(job: { status: string; tool?: string }): void {
	job.status = "interrupted";
	delete job.tool;
}

function listFiles(files: string[]): string {
	const shown = files.slice(0, FILES_IN_MESSAGE).join(", ");
	return files.length > FILES_IN_MESSAGE ? `${shown} and ${files.length - FILES_IN_MESSAGE} more` : shown;
}

function messageOf(error: unknown): string {
	return redactSecrets(error instanceof Error ? error.message : String(error));
}
