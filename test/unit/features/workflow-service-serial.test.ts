/**
 * Commands that arrive while a workflow's git runs (git no longer holds the event loop) are answered as if
 * they had come one after the other: per workflow (a second remove finds nothing, an integrate after a remove
 * finds nothing) and per repository (two workflows integrating into one base at once both complete).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { addWorktree, headCommit } from "../../../src/features/workflows/git.js";
import type { WorkflowRecord, WorkflowStatus } from "../../../src/features/workflows/schemas.js";
import { DEFAULT_WORKFLOW_LIMITS } from "../../../src/features/workflows/settings.js";
import { WorkflowService } from "../../../src/features/workflows/workflow-service.js";
import { EMPTY_PLAN } from "../../../src/features/todo/plan.js";

const made: string[] = [];
after(() => {
	for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
	const dir = realpathSync(mkdtempSync(join(tmpdir(), "skiff-wf-serial-")));
	made.push(dir);
	return dir;
}

const sh = (dir: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", ...args], { cwd: dir, encoding: "utf8" });

function repository(): string {
	const dir = tempDir();
	sh(dir, "init", "-q", "-b", "main");
	writeFileSync(join(dir, "a.txt"), "one\n");
	sh(dir, "add", "-A");
	sh(dir, "commit", "-q", "-m", "first");
	return dir;
}

let counter = 0;

/** A recorded workflow on `repo` in `status`, with a real worktree holding `file` (`committed` on its branch, or not). */
async function workflowOn(repo: string, status: WorkflowStatus, file: string, committed = false): Promise<WorkflowRecord> {
	const id = `wf-${(++counter).toString(16).padStart(12, "0")}`;
	const branch = `skiff/workflow/${id}`;
	const worktree = join(tempDir(), "worktree");
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
		plan: EMPTY_PLAN,
		workers: [],
		git: { branch, worktree, baseCommit, baseBranch: "main" },
		createdAt: now,
		updatedAt: now,
	};
}

function service(records: WorkflowRecord[]) {
	const removed: string[] = [];
	const warnings: string[] = [];
	const workflows = new WorkflowService({
		store: { load: () => records, save: () => undefined, remove: (id) => void removed.push(id), worktreeOf: () => "" },
		jobs: {
			spawnQuiet: async () => {
				throw new Error("no jobs here");
			},
			cancel: () => undefined,
			watch: () => () => undefined,
		} as never,
		observe: () => () => undefined,
		planOf: () => undefined,
		publish: () => undefined,
		limits: () => DEFAULT_WORKFLOW_LIMITS,
		knownTools: [],
		warn: (line) => void warnings.push(line),
	});
	return { workflows, removed, warnings };
}

async function outcome<T>(promise: Promise<T>): Promise<T | { code: unknown; message: string }> {
	try {
		return await promise;
	} catch (error) {
		return { code: (error as { code?: unknown }).code, message: (error as Error).message };
	}
}

test("two removes of one workflow at once: the first removes it, the second finds nothing", async () => {
	const repo = repository();
	const record = await workflowOn(repo, "cancelled", "b.txt", true);
	const { workflows, removed } = service([record]);
	const [first, second] = await Promise.all([outcome(workflows.remove(record.id)), outcome(workflows.remove(record.id))]);
	assert.deepEqual(first, { workflowId: record.id, branchKept: record.git!.branch }, "its unmerged branch is kept");
	assert.deepEqual(second, { code: "not_found", message: `No workflow "${record.id}": workflow_list lists them` });
	assert.deepEqual(removed, [record.id]);
	assert.ok(!existsSync(record.git!.worktree));
	assert.equal(sh(repo, "branch", "--list", "skiff/*").trim(), record.git!.branch);
});

test("an integrate and a remove of one conflicted workflow at once: each sees the other's result", async () => {
	const repo = repository();
	const record = await workflowOn(repo, "conflicted", "c.txt");
	const { workflows } = service([record]);
	const [integrated, removedAfter] = await Promise.all([outcome(workflows.integrate(record.id)), outcome(workflows.remove(record.id))]);
	assert.equal((integrated as { status: string }).status, "completed");
	assert.deepEqual(removedAfter, { workflowId: record.id }, "removed after it was integrated: its merged branch went too");
	assert.equal(readFileSync(join(repo, "c.txt"), "utf8"), "c.txt\n");
	assert.equal(sh(repo, "branch", "--list", "skiff/*"), "");

	const again = await outcome(workflows.integrate(record.id));
	assert.equal((again as { code: string }).code, "not_found");
});

test("two workflows integrating into one base at once both complete: one fast-forwards, the other merges", async () => {
	const repo = repository();
	const one = await workflowOn(repo, "paused", "one.txt");
	const two = await workflowOn(repo, "paused", "two.txt");
	const { workflows } = service([one, two]);
	const results = (await Promise.all([workflows.integrate(one.id), workflows.integrate(two.id)])).map((w) => [w.status, w.integration?.method, w.reason]);
	assert.deepEqual(results, [
		["completed", "fast-forward", undefined],
		["completed", "merge", undefined],
	]);
	assert.equal(readFileSync(join(repo, "one.txt"), "utf8"), "one.txt\n");
	assert.equal(readFileSync(join(repo, "two.txt"), "utf8"), "two.txt\n");
	assert.equal(sh(repo, "status", "--porcelain"), "");
});
