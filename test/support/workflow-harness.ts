/**
 * The workflow service over real git repositories without the runtime: recorded workflows with real
 * worktrees, and fake jobs the test finishes itself (after doing their work in the directory they were given).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Job } from "../../src/features/jobs/index.js";
import { EMPTY_PLAN, type TodoPlan } from "../../src/features/todo/index.js";
import { addWorktree, headCommit } from "../../src/features/workflows/git.js";
import type { WorkflowRecord, WorkflowStatus } from "../../src/features/workflows/schemas.js";
import { DEFAULT_WORKFLOW_LIMITS } from "../../src/features/workflows/settings.js";
import { WorkflowService } from "../../src/features/workflows/workflow-service.js";
import { sh, tempRepoDir } from "./git-repo.js";

let counter = 0;

/** A recorded workflow on `repo` in `status`, with a real worktree holding `file` (`committed` on its branch, or not). */
export async function workflowOn(repo: string, status: WorkflowStatus, file: string, committed = false, plan: TodoPlan = EMPTY_PLAN): Promise<WorkflowRecord> {
	const id = `wf-${(++counter).toString(16).padStart(12, "0")}`;
	const branch = `skiff/workflow/${id}`;
	const worktree = join(tempRepoDir("skiff-wf-worktree-"), "worktree");
	const baseCommit = (await headCommit(repo))!;
	await addWorktree(repo, worktree, branch, baseCommit);
	writeFileSync(join(worktree, file), `${file}\n`);
	if (committed) {
		sh(worktree, "add", "-A");
		sh(worktree, "commit", "-q", "-m", file);
	}
	const now = new Date().toISOString();
	return {
		id,
		name: id,
		objective: "Test.",
		isolation: "worktree",
		sessionId: "s",
		baseDir: repo,
		status,
		planned: true,
		plan,
		workers: [],
		git: { branch, worktree, baseCommit, baseBranch: "main" },
		createdAt: now,
		updatedAt: now,
	};
}

/** Jobs that do nothing until the test finishes them; each remembers the directory it was given. */
export class FakeJobs {
	readonly spawned: Array<{ job: Job; cwd?: string; task: string }> = [];
	private readonly listeners = new Set<(job: Job) => void>();

	async spawnQuiet(parentSessionId: string, item: { task: string; cwd?: string }): Promise<Job> {
		const job = {
			id: `job-${this.spawned.length + 1}`,
			agent: "task",
			task: item.task,
			parentSessionId,
			depth: 1,
			status: "running",
			createdAt: new Date().toISOString(),
			activity: { turns: 0, tokens: 0 },
		} satisfies Job;
		this.spawned.push({ job, cwd: item.cwd, task: item.task });
		return job;
	}

	cancel(ids: string[]): string[] {
		for (const id of ids) this.finish(id, "cancelled");
		return ids;
	}

	watch(listener: (job: Job) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Ends a job as the job service would report it. */
	finish(id: string, status: Job["status"]): void {
		const entry = this.spawned.find((s) => s.job.id === id);
		if (!entry || entry.job.status !== "running") return;
		entry.job.status = status;
		for (const listener of this.listeners) listener({ ...entry.job });
	}
}

/** A workflow service over `records`; its task checkouts go under a temporary folder. */
export function serviceOver(records: WorkflowRecord[], jobs?: FakeJobs) {
	const removed: string[] = [];
	const warnings: string[] = [];
	const folder = tempRepoDir("skiff-wf-agent-");
	const workflows = new WorkflowService({
		store: {
			load: () => records,
			save: () => undefined,
			remove: (id) => void removed.push(id),
			worktreeOf: (id) => join(folder, id, "worktree"),
			taskWorktreeOf: (id, taskId) => join(folder, id, "tasks", taskId),
		},
		jobs:
			jobs ??
			({
				spawnQuiet: async () => {
					throw new Error("no jobs here");
				},
				cancel: () => undefined,
				watch: () => () => undefined,
			} as never),
		observe: () => () => undefined,
		planOf: () => undefined,
		publish: () => undefined,
		limits: () => DEFAULT_WORKFLOW_LIMITS,
		knownTools: [],
		warn: (line) => void warnings.push(line),
	});
	return { workflows, removed, warnings };
}

/** What a promise settled with: its value, or the error's code and message. */
export async function outcome<T>(promise: Promise<T>): Promise<T | { code: unknown; message: string }> {
	try {
		return await promise;
	} catch (error) {
		return { code: (error as { code?: unknown }).code, message: (error as Error).message };
	}
}
