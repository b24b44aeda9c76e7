/**
 * Durable workflow records: one folder per workflow under `<agent-dir>/workflows/<id>/`, holding its record
 * (`workflow.json`, written whole and atomically on every change), its git worktree (`worktree/`) and the
 * checkouts of its tasks' jobs (`tasks/<task id>/`). A record that cannot be read is reported and left on
 * disk, never deleted.
 */
import { readdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { compileOnFirstUse } from "../../shared/compile-on-first-use.js";
import { readRegularFileSync } from "../../shared/regular-file.js";
import { writeFileAtomic } from "../atomic-file.js";
import { WORKFLOW_ID_PATTERN, type WorkflowRecord, WorkflowRecordSchema } from "./schemas.js";

const VERSION = 1;
const RECORD_FILE = "workflow.json";
const WORKFLOW_ID = new RegExp(WORKFLOW_ID_PATTERN);
/** The todo plan's task ids (TASK_ID_PATTERN there), which name folders here. */
const TASK_ID = /^[A-Za-z0-9_-]{1,32}$/;
const checkRecord = compileOnFirstUse(WorkflowRecordSchema);

export class WorkflowStore {
	readonly folder: string;

	constructor(agentDir: string) {
		this.folder = join(agentDir, "workflows");
	}

	/** The folder of one workflow (its record and worktree). */
	dirOf(id: string): string {
		if (!WORKFLOW_ID.test(id)) throw new Error(`not a workflow id: ${id}`);
		return join(this.folder, id);
	}

	worktreeOf(id: string): string {
		return join(this.dirOf(id), "worktree");
	}

	/** The checkout one task's job works in (task ids are plain names: `[A-Za-z0-9_-]`). */
	taskWorktreeOf(id: string, taskId: string): string {
		if (!TASK_ID.test(taskId)) throw new Error(`not a task id: ${taskId}`);
		return join(this.dirOf(id), "tasks", taskId);
	}

	/** Every readable record, oldest first; unreadable ones are reported through `warn`. */
	load(warn: (line: string) => void): WorkflowRecord[] {
		let names: string[];
		try {
			names = readdirSync(this.folder);
		} catch {
			return [];
		}
		const records: WorkflowRecord[] = [];
		for (const name of names) {
			if (!WORKFLOW_ID.test(name)) continue;
			const path = join(this.folder, name, RECORD_FILE);
			try {
				// A regular file only: a FIFO or a link in its place is reported, never waited on (src/shared/regular-file.ts).
				const data = JSON.parse(readRegularFileSync(path, "refuse")) as { version?: unknown; workflow?: unknown };
				if (data.version !== VERSION) throw new Error(`not a version ${VERSION} workflow record`);
				if (!checkRecord().Check(data.workflow)) throw new Error("not a workflow record");
				records.push(data.workflow as WorkflowRecord);
			} catch (error) {
				if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
				warn(`workflows: ${path} could not be read (${(error as Error).message}); it is left as it is`);
			}
		}
		return records.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
	}

	save(record: WorkflowRecord): void {
		writeFileAtomic(join(this.dirOf(record.id), RECORD_FILE), `${JSON.stringify({ version: VERSION, workflow: record }, null, 1)}\n`);
	}

	/**
	 * Deletes a workflow's folder (its record and whatever is left of its worktree: a whole checkout when git
	 * could not remove it, so not on the event loop).
	 */
	async remove(id: string): Promise<void> {
		await rm(this.dirOf(id), { recursive: true, force: true });
	}
}
