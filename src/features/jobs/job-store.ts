/**
 * Durable job records: `<agent-dir>/jobs/jobs.json` (every job, written whole and atomically on each change
 * of status) and each finished job's output beside it (`<id>.txt`). A job found queued or running when the
 * service starts was cut short by a restart: it is marked `interrupted`, never silently lost.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { NotRegularFileError, readRegularFileSync } from "../../shared/regular-file.js";
import { writeFileAtomic } from "../atomic-file.js";
import { FINISHED_STATUSES, type Job } from "./schemas.js";

const VERSION = 1;
const JOB_ID = /^job-[0-9a-f]{8,32}$/;

export class JobStore {
	readonly folder: string;
	private readonly path: string;

	constructor(agentDir: string) {
		this.folder = join(agentDir, "jobs");
		this.path = join(this.folder, "jobs.json");
	}

	/**
	 * The recorded jobs, oldest first, with those that were queued or running marked interrupted (and written
	 * back). A missing file is no jobs; an unreadable one (a FIFO or a link in its place among them: records are
	 * read from regular files only, src/shared/regular-file.ts) is reported through `warn` and set aside as no
	 * jobs.
	 */
	load(now: string, warn: (line: string) => void): Job[] {
		let jobs: Job[];
		try {
			const data = JSON.parse(readRegularFileSync(this.path, "refuse")) as { version?: unknown; jobs?: unknown };
			if (data.version !== VERSION || !Array.isArray(data.jobs)) throw new Error(`not a version ${VERSION} job file`);
			jobs = (data.jobs as Job[]).filter((job) => typeof job?.id === "string" && JOB_ID.test(job.id));
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
			warn(`jobs: ${this.path} could not be read (${(error as Error).message}); starting without job records`);
			return [];
		}
		let changed = false;
		for (const job of jobs) {
			if (FINISHED_STATUSES.has(job.status)) continue;
			job.status = "interrupted";
			job.finishedAt = now;
			job.error = "The service stopped while the job was queued or running";
			delete job.activity.tool;
			changed = true;
		}
		if (changed) this.save(jobs);
		return jobs;
	}

	save(jobs: readonly Job[]): void {
		writeFileAtomic(this.path, `${JSON.stringify({ version: VERSION, jobs }, null, 1)}\n`);
	}

	saveOutput(id: string, output: string): void {
		writeFileAtomic(this.outputPath(id), output);
	}

	/** A finished job's output; undefined when it has none, or when what is there is not a regular file (`warn` says so). */
	output(id: string, warn: (line: string) => void): string | undefined {
		try {
			return readRegularFileSync(this.outputPath(id), "refuse");
		} catch (error) {
			if (error instanceof NotRegularFileError) warn(`jobs: ${error.message}; the job's output is not read`);
			return undefined;
		}
	}

	forget(id: string): void {
		rmSync(this.outputPath(id), { force: true });
	}

	private outputPath(id: string): string {
		if (!JOB_ID.test(id)) throw new Error(`not a job id: ${id}`);
		return join(this.folder, `${id}.txt`);
	}
}
