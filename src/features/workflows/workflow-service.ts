/**
 * Workflows: an objective planned by a supervisor agent into a todo plan, whose ready tasks are run as jobs,
 * each in a checkout of its own of the branch `skiff/workflow/<id>` (or, with isolation `none`, in the
 * directory itself), each finished task committed there and merged into the branch (in the workflow's
 * worktree), and the result integrated back into the base checkout without ever leaving it half-merged (see
 * git.ts and base-move.ts). Every change of status goes through the pure lifecycle; records are durable, and
 * a workflow the service stopped under is found paused, to be resumed or cancelled.
 *
 * git runs without blocking the event loop, so a command can arrive while another waits for git: the actions
 * on one workflow and the ends of its jobs run one after another (`serially`), and the git steps on one
 * repository do too (`inRepository`: two workflows never integrate into one base at once), just as they did
 * when git held the loop. When the service stops, integrations and merges of tasks' work in progress are
 * finished (each git command is bounded by its timeout) and none starts after (`stop`).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { RuntimeEvent, SessionObserver } from "../../agent/types.js";
import { CodedError } from "../../shared/errors.js";
import { redactSecrets } from "../../shared/redact.js";
import { FINISHED_STATUSES, type Job, type JobService, type JobStatus } from "../jobs/index.js";
import { allTasks, EMPTY_PLAN, isSettled, type TodoPlan, type TodoStatus, viewPlan } from "../todo/index.js";
import { locksNote, type SettledMove, settleBaseMove } from "./base-move.js";
import { checkBase, existing } from "./base-state.js";
import { workflowUpdatedEvent } from "./events.js";
import { listFiles } from "./file-list.js";
import {
	addDetachedWorktree,
	addWorktree,
	branchExists,
	commitAll,
	deleteBranch,
	diffSummary,
	fastForward,
	headCommit,
	isAncestor,
	mergeIntoWorktree,
	notARepository,
	removeWorktrees,
	repositoryRoot,
	uncommittedFiles,
} from "./git.js";
import { allowedActions, checkAction, transition, type WorkflowStep } from "./lifecycle.js";
import { supervisorDefinition, supervisorPrompt, workerDefinition, workerPrompt } from "./prompts.js";
import type { BaseMove, Integration, Isolation, Workflow, WorkflowLimits, WorkflowRecord } from "./schemas.js";
import { SerialQueues } from "./serial.js";
import type { WorkflowStore } from "./workflow-store.js";

/** Most workflows kept (finished ones stay until removed). */
export const MAX_WORKFLOWS = 100;

/** The kind a workflow's supervisor and worker sessions are recorded as (SessionSummary.kind); `ownerId` is the workflow. */
export const WORKFLOW_SESSION_KIND = "workflow";

export interface WorkflowServiceOptions {
	store: Pick<WorkflowStore, "load" | "save" | "worktreeOf" | "taskWorktreeOf"> & { remove(id: string): void | Promise<void> };
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

/** A git sequence asked for once the service is stopping: it does not start (see WorkflowService.stop). */
class ServiceStopping extends Error {}

/** A task's commit that conflicts with the branch: its files, and where the commit stays. */
interface TaskConflict {
	files: string[];
	commit: string;
	checkout: string;
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
	/** Integrations and merges of tasks' work running now (guarded): the service's stop waits for them. */
	private readonly inFlight = new Set<Promise<unknown>>();
	private closing = false;
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
	 * (nothing made) without a commit, in the middle of a rebase, merge, cherry-pick, revert or bisect, on a
	 * detached HEAD, with uncommitted changes or when the branch exists.
	 */
	private async createWorktree(root: string, id: string): Promise<NonNullable<WorkflowRecord["git"]>> {
		const head = await headCommit(root);
		if (!head) throw new CodedError("invalid_command", `The repository ${root} has no commit yet: a workflow's branch starts from one, so commit first`);
		const baseBranch = await checkBase(root, "then create the workflow");
		const dirty = await uncommittedFiles(root);
		if (dirty.length) {
			throw new CodedError(
				"conflict",
				`The base checkout ${root} has uncommitted changes (${listFiles(dirty)}): commit or stash them first, so that the workflow's result can be integrated back`,
			);
		}
		const branch = `skiff/workflow/${id}`;
		if (await branchExists(root, branch)) throw new CodedError("conflict", `The branch ${branch} already exists`);
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
		return { branch, worktree, baseCommit: head, baseBranch };
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
						await removeWorktrees(record.baseDir, [...this.taskCheckouts(record), git.worktree]);
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

	/**
	 * The service stops: no integration or merge of a task's work starts any more, and the ones running finish
	 * (or roll back) first, so a signal never leaves a base half-merged. Each git command is bounded by its
	 * timeout, and a second signal exits at once (the next start settles what was left).
	 */
	async stop(): Promise<void> {
		this.closing = true;
		if (this.inFlight.size) this.options.warn(`workflows: finishing ${this.inFlight.size} integration or merge step(s) in git before stopping (a second signal exits at once)`);
		while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
	}

	/** After a restart: a workflow that was moving is paused where it was, its unfinished jobs marked interrupted. */
	private recover(record: WorkflowRecord): void {
		if (!["queued", "planning", "running", "integrating"].includes(record.status)) return;
		if (record.status === "integrating" && record.baseMove) return this.settleAfterRestart(record, record.baseMove);
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
				recordAs: { kind: WORKFLOW_SESSION_KIND, ownerId: record.id },
			});
			this.roles.set(job.id, { workflowId: record.id });
			record.supervisor = { jobId: job.id, status: job.status, turns: 0, toolCalls: 0, failures: 0 };
			if (record.status !== "planning") return this.stopJob(job.id); // paused or cancelled meanwhile
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
		// The service is stopping: the next start finds the workflow paused, and resuming plans again.
		if (job.status === "interrupted") return;
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
		// A task in progress is busy even once its job has finished: its work is taken (committed and merged) when
		// its end is handled, in turn; starting it again meanwhile would run it twice, over its own checkout.
		const busy = new Set(tasks.filter((task) => task.status === "in_progress").map((task) => task.id));
		for (const worker of record.workers) if (!FINISHED_STATUSES.has(worker.status as JobStatus)) busy.add(worker.taskId);
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
			let cwd = record.baseDir;
			if (record.git) {
				try {
					cwd = await this.taskCheckout(record, record.git, taskId);
				} catch (error) {
					if (record.status === "running") this.fail(record, `The checkout for task ${taskId} could not be made: ${messageOf(error)}`);
					return;
				}
				if (record.status !== "running") return await this.dropTaskCheckout(record, taskId); // paused or cancelled meanwhile
			}
			const task = allTasks(record.plan).find((t) => t.id === taskId)!;
			const job = await this.options.jobs.spawnQuiet(record.sessionId, {
				definition: workerDefinition(),
				task: workerPrompt(record, record.plan, task),
				description: `${record.name}: ${task.id} ${task.content}`.slice(0, 200),
				cwd,
				recordAs: { kind: WORKFLOW_SESSION_KIND, ownerId: record.id },
			});
			this.roles.set(job.id, { workflowId: record.id, taskId });
			record.workers.push({ taskId, jobId: job.id, status: job.status });
			if (record.status !== "running") return this.stopJob(job.id);
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
		// The service is stopping: the task is found open again on the next start, its checkout made afresh.
		if (job.status === "interrupted") return;
		if (this.stopping.delete(job.id) || record.status !== "running") return this.dropTaskCheckout(record, taskId);
		const task = allTasks(record.plan).find((t) => t.id === taskId);
		if (!task) return;
		if (job.status !== "completed") {
			this.fail(record, `Task ${task.id} "${task.content}" ${job.status === "failed" ? "failed" : `was ${job.status}`}${job.error ? `: ${job.error}` : ""}`);
			return this.dropTaskCheckout(record, taskId);
		}
		const git = record.git;
		if (git) {
			let conflict: TaskConflict | undefined;
			try {
				conflict = await this.inRepository(record.baseDir, () => this.guarded(() => this.takeTaskWork(record, git, task, job.id)));
			} catch (error) {
				if (error instanceof ServiceStopping) return; // as for an interrupted job
				return this.fail(record, `The work of task ${task.id} could not be committed: ${messageOf(error)}`);
			}
			if (conflict) {
				this.stopJobs(record);
				const branchHead = await headCommit(git.worktree).catch(() => undefined);
				return this.conflicted(
					record,
					`Task ${task.id} "${task.content}" changed the same lines as the tasks merged before it: ${listFiles(conflict.files)} conflict. Nothing of it was merged into ${git.branch}; its commit ${conflict.commit} stays in ${conflict.checkout}. Merge it by hand (git -C ${git.worktree} merge ${conflict.commit}, resolve, commit), then workflow_integrate; or workflow_cancel`,
					conflict.files,
					branchHead,
				);
			}
		}
		record.plan = withStatus(record.plan, taskId, "completed");
		record.updatedAt = this.timestamp();
		await this.pump(record);
	}

	/**
	 * A new checkout for a task's job, at the branch's head (so it holds the work of the tasks it waits for),
	 * replacing whatever an earlier run of the task left there.
	 */
	private taskCheckout(record: WorkflowRecord, git: NonNullable<WorkflowRecord["git"]>, taskId: string): Promise<string> {
		const checkout = this.options.store.taskWorktreeOf(record.id, taskId);
		return this.inRepository(record.baseDir, async () => {
			if ((await existing([checkout])).length) await removeWorktrees(record.baseDir, [checkout]);
			await mkdir(dirname(checkout), { recursive: true, mode: 0o700 });
			await addDetachedWorktree(record.baseDir, checkout, (await headCommit(git.worktree))!);
			return checkout;
		});
	}

	/** Removes a task's checkout whose work is not taken (its job stopped or failed); failing to is only worth a warning. */
	private async dropTaskCheckout(record: WorkflowRecord, taskId: string): Promise<void> {
		if (!record.git) return;
		const checkout = this.options.store.taskWorktreeOf(record.id, taskId);
		try {
			await this.inRepository(record.baseDir, async () => {
				if ((await existing([checkout])).length) await removeWorktrees(record.baseDir, [checkout]);
			});
		} catch (error) {
			this.options.warn(`workflows: the checkout of task ${taskId} of ${record.id} could not be removed: ${messageOf(error)}`);
		}
	}

	/** The checkouts the workflow's tasks may have left. */
	private taskCheckouts(record: WorkflowRecord): string[] {
		return [...new Set(record.workers.map((worker) => worker.taskId))].map((taskId) => this.options.store.taskWorktreeOf(record.id, taskId));
	}

	/**
	 * Commits a finished task's work in its checkout (the commit holds exactly its own change) and merges it
	 * into the workflow's branch: the branch moves to it when no other task's work came in meanwhile. On a
	 * conflict the merge is aborted and the checkout kept (its commit is the task's work); otherwise it goes.
	 */
	private async takeTaskWork(record: WorkflowRecord, git: NonNullable<WorkflowRecord["git"]>, task: { id: string; content: string }, jobId: string): Promise<TaskConflict | undefined> {
		const checkout = this.options.store.taskWorktreeOf(record.id, task.id);
		if (await commitAll(checkout, `${task.id}: ${task.content}\n\nWorkflow ${record.name} (${record.id}), job ${jobId}`)) {
			const commit = (await headCommit(checkout))!;
			const files = await mergeIntoWorktree(git.worktree, commit, `Merge ${task.id} into ${git.branch}`, { fastForward: true });
			if (files.length) return { files, commit, checkout };
		}
		await removeWorktrees(record.baseDir, [checkout]);
		return undefined;
	}

	/**
	 * Takes the branch into the base: the base's head is merged into the branch inside the worktree (a conflict
	 * is aborted there and reported with its files), then the base fast-forwards to the result (moveBase).
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
				await this.guarded(() => this.integrateGit(record, git));
			} catch (error) {
				if (error instanceof ServiceStopping) {
					return this.move(record, "interrupt", "The service stopped before it integrated: workflow_integrate (or workflow_resume) goes on, workflow_cancel gives up");
				}
				// Past the journal, the base may have been touched: what it holds is said by settling the move.
				if (record.baseMove) return await this.settleFailedMove(record, record.baseMove, `Integration failed: ${messageOf(error)}`);
				await this.conflicted(record, `Integration failed and nothing was merged: ${messageOf(error)}`, [], undefined);
			}
		});
	}

	/** integrateNow's git sequence (in the repository's queue). */
	private async integrateGit(record: WorkflowRecord, git: NonNullable<WorkflowRecord["git"]>): Promise<void> {
		// A move an earlier integration did not finish is settled first: it may have happened, or block this one.
		if (record.baseMove) {
			const move = record.baseMove;
			const settled = await settleBaseMove(record.baseDir, move);
			if (settled.state !== "undone" || settled.locks.length) return this.applySettled(record, move, settled, "An earlier integration was stopped while it moved the base", "conflict");
			delete record.baseMove;
			this.save(record);
		}
		await commitAll(git.worktree, `Workflow ${record.name} (${record.id}): remaining changes`);
		const branchHead = (await headCommit(git.worktree))!;
		let branchNow: string;
		try {
			branchNow = await checkBase(record.baseDir, "then workflow_integrate");
		} catch (error) {
			if (error instanceof CodedError && error.code === "conflict") return await this.conflicted(record, error.message, [], branchHead);
			throw error;
		}
		if (git.baseBranch && branchNow !== git.baseBranch) {
			return await this.conflicted(record, `The base checkout is on ${branchNow}, not ${git.baseBranch}: check out ${git.baseBranch}, then workflow_integrate`, [], branchHead);
		}
		const dirty = await uncommittedFiles(record.baseDir);
		if (dirty.length) {
			return await this.conflicted(record, `The base checkout has uncommitted changes (${listFiles(dirty)}): commit or stash them, then workflow_integrate`, dirty, branchHead);
		}
		const baseHead = (await headCommit(record.baseDir))!;
		this.checkOpen();
		const conflicts = await mergeIntoWorktree(git.worktree, baseHead, `Merge ${branchNow} into ${git.branch}`);
		if (conflicts.length) {
			return await this.conflicted(record, `The base changed the same lines: ${listFiles(conflicts)} conflict. Nothing was merged; resolve it on the branch ${git.branch} (or change the base), then workflow_integrate`, conflicts, branchHead);
		}
		const merged = (await headCommit(git.worktree))!;
		const summary = await diffSummary(record.baseDir, baseHead, merged);
		if (merged === baseHead) {
			record.integration = { method: "none", ...summary, conflicts: [], commit: baseHead };
			return this.move(record, "integrated", undefined);
		}
		const method = (await isAncestor(record.baseDir, baseHead, branchHead)) ? "fast-forward" : "merge";
		this.checkOpen();
		await this.moveBase(record, { ref: `refs/heads/${branchNow}`, from: baseHead, to: merged, method, startedAt: this.timestamp() }, summary);
	}

	/**
	 * Fast-forwards the base's branch, journalled: the move is on disk before git touches the base (nothing is
	 * touched when it cannot be recorded), and a move git did not finish is settled at once (base-move.ts).
	 */
	private async moveBase(record: WorkflowRecord, move: BaseMove, summary: Omit<Integration, "conflicts" | "method" | "commit">): Promise<void> {
		record.baseMove = move;
		try {
			this.options.store.save(record);
		} catch (error) {
			delete record.baseMove;
			throw error;
		}
		try {
			await fastForward(record.baseDir, move.to);
		} catch (error) {
			return this.settleFailedMove(record, move, `Moving ${branchName(move.ref)} to the integrated commit failed: ${messageOf(error)}`);
		}
		delete record.baseMove;
		record.integration = { method: move.method, ...summary, conflicts: [], commit: move.to };
		this.move(record, "integrated", undefined);
	}

	/** Settles a move that failed in this process; when even that fails, the journal stays for the next try. */
	private async settleFailedMove(record: WorkflowRecord, move: BaseMove, why: string): Promise<void> {
		let settled: SettledMove;
		try {
			settled = await settleBaseMove(record.baseDir, move);
		} catch (error) {
			return this.conflicted(record, `${why}. What it left in the base could not be checked (${messageOf(error)}): workflow_integrate checks again`, [], undefined);
		}
		await this.applySettled(record, move, settled, why, "conflict");
	}

	/** On start: an integration the service stopped under while it moved the base is settled before anything else runs on it. */
	private settleAfterRestart(record: WorkflowRecord, move: BaseMove): void {
		const why = `The service stopped while it moved ${branchName(move.ref)} to the integrated commit`;
		void this.serially(record.id, () =>
			this.inRepository(record.baseDir, async () => {
				let settled: SettledMove;
				try {
					settled = await this.guarded(() => settleBaseMove(record.baseDir, move));
				} catch (error) {
					if (error instanceof ServiceStopping) return; // still journalled: the next start settles it
					return this.conflicted(record, `${why}, and what it left in the base could not be checked (${messageOf(error)}): workflow_integrate checks again`, [], undefined);
				}
				await this.applySettled(record, move, settled, why, "interrupt");
			}),
		).catch((error) => this.options.warn(`workflows: the integration of ${record.id} could not be settled: ${messageOf(error)}`));
	}

	/**
	 * Records how a move that did not end cleanly was settled: done (completed, with any lock file git left
	 * named), undone (the workflow may integrate again: `undone` says whether it is paused or conflicted), or
	 * stuck (conflicted, the journal kept, the reason saying what to do).
	 */
	private async applySettled(record: WorkflowRecord, move: BaseMove, settled: SettledMove, why: string, undone: "interrupt" | "conflict"): Promise<void> {
		const locks = locksNote(record.baseDir, settled);
		if (locks) this.options.warn(`workflows: ${record.id}: ${locks}`);
		const branch = branchName(move.ref);
		if (settled.state === "moved") {
			delete record.baseMove;
			const summary = await diffSummary(record.baseDir, move.from, move.to).catch(() => ({ files: [], filesChanged: 0, insertions: 0, deletions: 0 }));
			record.integration = { method: move.method, ...summary, conflicts: [], commit: move.to };
			return this.move(record, "integrated", locks ? `${why}, after it moved ${branch}: the integration is complete, but ${locks}` : undefined);
		}
		if (settled.state === "stuck") return this.conflicted(record, `${why}. ${settled.problem}${locks ? `. Also, ${locks}` : ""}`, [], undefined);
		delete record.baseMove;
		const putBack = settled.restored.length ? ` (skiff put back ${listFiles(settled.restored)})` : "";
		const state = `${why}. ${branch} was not moved and the base checkout is as it was${putBack}: nothing was merged`;
		if (locks) return this.conflicted(record, `${state}. But ${locks}; then workflow_integrate`, [], undefined);
		if (undone === "interrupt") return this.move(record, "interrupt", `${state}. workflow_integrate (or workflow_resume) tries again, workflow_cancel gives up`);
		return this.conflicted(record, `${state}. workflow_integrate tries again`, [], undefined);
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
		for (const id of ids) this.stopJob(id);
		record.plan = reopenStarted(record.plan);
	}

	private stopJob(jobId: string): void {
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
		await removeWorktrees(repo, [git.worktree]);
		await deleteBranch(repo, git.branch, { onlyIfMerged: false });
	}

	/** Runs `task` after the actions and job ends of workflow `id` queued before it. */
	private serially<T>(id: string, task: () => T | Promise<T>): Promise<T> {
		return this.workflowQueues.run(id, task);
	}

	/**
	 * Runs an integration's or a task merge's git sequence, unless the service is stopping (ServiceStopping);
	 * the service's stop waits for it. Call it inside the repository's queue, so that one waiting there
	 * when the service stops does not start.
	 */
	private guarded<T>(task: () => Promise<T>): Promise<T> {
		if (this.closing) return Promise.reject(new ServiceStopping("The service is stopping"));
		const running = task();
		this.inFlight.add(running);
		const forget = () => void this.inFlight.delete(running);
		running.then(forget, forget);
		return running;
	}

	/** Between the steps of a guarded sequence: the service is stopping, so the next step does not start. */
	private checkOpen(): void {
		if (this.closing) throw new ServiceStopping("The service is stopping");
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
	const { plan, baseMove: _journal, ...rest } = record;
	return structuredClone({ ...rest, phases: viewPlan(plan), actions: allowedActions(record.status) });
}

/** Where the workflow's supervisor reads the project (its tasks' jobs each get a checkout of their own). */
function workDir(record: WorkflowRecord): string {
	return record.git?.worktree ?? record.baseDir;
}

/** `main` for `refs/heads/main`. */
function branchName(ref: string): string {
	return ref.replace(/^refs\/heads\//, "");
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

function messageOf(error: unknown): string {
	return redactSecrets(error instanceof Error ? error.message : String(error));
}
