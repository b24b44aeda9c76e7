/** The jobs' limits as settings (global only: they bound what the whole service runs). */
import type { SettingDefinition } from "../../settings/definition.js";
import { type LimitBounds, limitSettings } from "../limit-settings.js";
import { MAX_TIMEOUT_SECONDS, MAX_TURNS_LIMIT } from "./definitions.js";
import type { JobLimits } from "./schemas.js";

export const DEFAULT_JOB_LIMITS: JobLimits = {
	maxConcurrency: 4,
	maxDepth: 2,
	maxKept: 256,
	maxTurns: 50,
	timeoutSeconds: 1800,
};

const bounds: LimitBounds<JobLimits> = {
	maxConcurrency: [1, 32, "Jobs running at once; more wait as `queued`."],
	maxDepth: [1, 8, "How deep jobs may nest: 1 lets only top-level sessions spawn jobs, 2 lets their jobs spawn one more level, ..."],
	maxKept: [16, 4096, "Job records kept; the oldest finished ones are forgotten beyond it (their child sessions stay recorded)."],
	maxTurns: [1, MAX_TURNS_LIMIT, "Model turns a job may take unless its agent sets maxTurns; past it the job fails."],
	timeoutSeconds: [1, MAX_TIMEOUT_SECONDS, "Seconds a job may run unless its agent sets timeoutSeconds; past it the job fails."],
};

const settings = limitSettings("jobs", DEFAULT_JOB_LIMITS, bounds);

export const jobSettingDefinitions: SettingDefinition[] = settings.definitions;

/** The limits from the settings' values (defaults for keys not set). */
export function jobLimitsFrom(values: Map<string, unknown>): JobLimits {
	return settings.from(values);
}
