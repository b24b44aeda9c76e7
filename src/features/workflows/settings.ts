/** The workflows' limits as settings (global only: they bound what the whole service runs). */
import { Type } from "typebox";
import { defineSetting, type SettingDefinition } from "../../settings/definition.js";
import type { WorkflowLimits } from "./schemas.js";

export const DEFAULT_WORKFLOW_LIMITS: WorkflowLimits = {
	supervisorMaxTurns: 20,
	supervisorMaxToolCalls: 60,
	supervisorTimeoutSeconds: 600,
	supervisorMaxFailures: 3,
	maxWorkers: 2,
};

const bounds: Record<keyof WorkflowLimits, [number, number, string]> = {
	supervisorMaxTurns: [1, 200, "Model turns a workflow's supervisor may take to plan; past it the workflow fails."],
	supervisorMaxToolCalls: [1, 1000, "Tool calls a workflow's supervisor may make to plan; past it the workflow fails."],
	supervisorTimeoutSeconds: [10, 24 * 60 * 60, "Seconds a workflow's supervisor may take to plan; past it the workflow fails."],
	supervisorMaxFailures: [1, 50, "Failed tool calls in a row that stop a workflow's supervisor (the workflow fails)."],
	maxWorkers: [1, 16, "Jobs one workflow runs at once on its ready tasks (jobs.maxConcurrency bounds all jobs)."],
};

export const workflowSettingDefinitions: SettingDefinition[] = Object.entries(bounds).map(([name, [minimum, maximum, description]]) =>
	defineSetting({
		key: `workflows.${name}`,
		category: "workflows",
		scopes: ["global"],
		applies: "live",
		schema: Type.Integer({ minimum, maximum, description, default: DEFAULT_WORKFLOW_LIMITS[name as keyof WorkflowLimits] }),
	}),
);

/** The limits from the settings' values (defaults for keys not set). */
export function workflowLimitsFrom(values: Map<string, unknown>): WorkflowLimits {
	const limits = { ...DEFAULT_WORKFLOW_LIMITS };
	for (const name of Object.keys(bounds) as Array<keyof WorkflowLimits>) {
		const value = values.get(`workflows.${name}`);
		if (typeof value === "number") limits[name] = value;
	}
	return limits;
}
