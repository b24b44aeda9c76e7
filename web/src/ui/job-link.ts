/**
 * How parts of the page outside the Jobs panel reach a job: the jobs' state (kept current by job_updated) and
 * `open`, which shows the job's detail in the Jobs panel (opening the phone drawer). The page provides it
 * (app.tsx); the value changes whenever the jobs do, so its users re-render on every job_updated.
 */
import { createContext } from "preact";
import type { JobsState } from "../state/jobs-state";

export interface JobLink {
	jobs: JobsState;
	/** JobsState.version when this value was made. */
	version: number;
	/** Shows the job in the Jobs panel's detail view. */
	open(jobId: string): void;
}

export const JobLinkContext = createContext<JobLink | undefined>(undefined);
