/** What a workflow's agents are told: the supervisor plans, each worker does one task of the plan. */
import { type AgentDefinition, TASK_AGENT } from "../jobs/index.js";
import { renderPlan, type TodoPlan, type TodoTask } from "../todo/index.js";
import type { WorkflowLimits, WorkflowRecord } from "./schemas.js";

/** The core tools the supervisor may use: it reads the project, it does not change it. */
export const SUPERVISOR_TOOLS = ["read", "grep", "find", "ls"];

/** The supervisor's agent: plans with the `todo` tool and the read-only tools, bounded by the workflow limits. */
export function supervisorDefinition(limits: WorkflowLimits, knownTools: readonly string[]): AgentDefinition {
	return {
		name: "workflow-supervisor",
		description: "Plans a workflow's objective into a todo plan of phases and tasks.",
		source: "bundled",
		tools: SUPERVISOR_TOOLS.filter((tool) => knownTools.includes(tool)),
		maxTurns: limits.supervisorMaxTurns,
		timeoutSeconds: limits.supervisorTimeoutSeconds,
		systemPrompt:
			"You are the supervisor of a workflow: you plan, other agents do the work. Read what you need of the project, " +
			"then make the plan with ONE `todo` call, op `init`: phases of tasks, each task one self-contained piece of work " +
			"for one agent that sees only that task and the objective, with `dependsOn` for the tasks it must wait for. " +
			"Tasks without dependencies between them run at the same time, each in a checkout of its own, and their changes " +
			"are merged as each is done: two that change the same lines conflict, so keep them apart. Do not " +
			"change any file yourself. When the plan is made, call `yield` with one line saying so.",
	};
}

/** The supervisor's prompt: the objective as the person wrote it (it is the supervisor's whole assignment). */
export function supervisorPrompt(workflow: Pick<WorkflowRecord, "name" | "objective">): string {
	return `Plan the workflow "${workflow.name}". Make the plan with the todo tool (op init), then yield. Its objective:\n\n${workflow.objective}`;
}

/** The agent that does one task (the general one, told it works in a workflow). */
export function workerDefinition(): AgentDefinition {
	return {
		...TASK_AGENT,
		systemPrompt:
			`${TASK_AGENT.systemPrompt} You work on one task of a workflow's plan, in a checkout of the workflow's branch ` +
			"of your own (your working directory): change files there, do not commit (the workflow commits your work when " +
			"your task is done and merges it into its branch), and leave the other tasks to their agents.",
	};
}

/** A worker's prompt: the objective and the plan for context (quoted: they are not its assignment), then its own task on its own line. */
export function workerPrompt(workflow: Pick<WorkflowRecord, "name" | "objective">, plan: TodoPlan, task: TodoTask): string {
	return [
		`Workflow "${workflow.name}". Its objective:`,
		quote(workflow.objective),
		"",
		"The plan (yours is one task of it):",
		quote(renderPlan(plan)),
		"",
		`Your task (${task.id}):`,
		task.content,
	].join("\n");
}

function quote(text: string): string {
	return text
		.split("\n")
		.map((line) => `> ${line}`)
		.join("\n");
}
