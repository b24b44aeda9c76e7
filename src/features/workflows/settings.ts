/** The workflows' limits as settings (global only: they bound what the whole service runs). */
import type { SettingDefinition } from "../../settings/definition.js";
import { type LimitBounds, limitSettings } from "../limit-settings.js";
import type { WorkflowLimits } from "./schemas.js";

export const DEFAULT_WORKFLOW_LIMITS: WorkflowLimits = {
	supervisorMaxTurns: 20,
	supervisorMaxToolCalls: 60,
	supervisorTimeoutSeconds: 600,
	supervisorMaxFailures: 3,
	maxWorkers: 2,
};

const bounds: LimitBounds<WorkflowLimits> = {
	supervisorMaxTurns: [1, 200, "Model turns a workflow's supervisor may take to plan; past it the workflow fails."],
	supervisorMaxToolCalls: [1, 1000, "Tool calls a workflow's supervisor may make to plan; past it the workflow fails."],
	supervisorTimeoutSeconds: [10, 24 * 60 * 60, "Seconds a workflow's supervisor may take to plan; past it the workflow fails."],
	supervisorMaxFailures: [1, 50, "Failed tool calls in a row that stop a workflow's supervisor (the workflow fails)."],
	maxWorkers: [1, 16, "Jobs one workflow runs at once on its ready tasks (jobs.maxConcurrency bounds all jobs)."],
};

const settings = limitSettings("workflows", DEFAULT_WORKFLOW_LIMITS, bounds);

export const workflowSettingDefinitions: SettingDefinition[] = settings.definitions;

/** The limits from the settings' values (defaults for keys not set). */
export function workflowLimitsFrom(values: Map<string, unknown>): WorkflowLimits {
	return settings.from(values);
}
