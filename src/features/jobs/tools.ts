/** The jobs' agent tools: `task` (delegate to child agents) and, in a job's own session, `yield` (deliver the result). */
import { Type } from "typebox";
import { defineFeatureTool, type FeatureTool } from "../../agent/feature-tool.js";
import { MAX_BATCH_TASKS, type Job, type TaskArgs, TaskArgsProperties } from "./schemas.js";

/** The `task` tool of one session: spawning goes through `spawn`, which knows the session. */
export function createTaskTool(spawn: (args: TaskArgs) => Promise<Job[]>): FeatureTool {
	return defineFeatureTool({
		name: "task",
		label: "Task",
		description:
			"Delegates work to child agents that run in the background as jobs, each in its own session. Give one `task` " +
			`(optionally an \`agent\` from the catalog; default: the general \`task\` agent), or a batch: \`tasks\` (up to ${MAX_BATCH_TASKS}) ` +
			"with a shared `context`. Returns at once with the job ids; each result arrives later as a message, so do not " +
			"poll: continue with other work or end your turn.",
		parameters: Type.Object(TaskArgsProperties),
		async execute(params) {
			const jobs = await spawn(params as TaskArgs);
			const lines = jobs.map((job) => `- ${job.id} (${job.agent}): ${job.description ?? firstLine(job.task)}`);
			return `Started ${jobs.length} job${jobs.length === 1 ? "" : "s"}:\n${lines.join("\n")}\nTheir results arrive as messages when they finish.`;
		},
	});
}

/** A job's `yield` tool: the first call delivers the result; any later call is refused. */
export function createYieldTool(deliver: (text: string) => boolean): FeatureTool {
	return defineFeatureTool({
		name: "yield",
		label: "Yield",
		description:
			"Delivers your final result to the agent that delegated this task, exactly once. Put everything it needs in " +
			"`text`; then stop (end your turn without further tool calls).",
		parameters: Type.Object({ text: Type.String({ minLength: 1, description: "Your result." }) }),
		async execute(params) {
			if (!deliver(params.text)) throw new Error("yield was already called: the result was delivered once; end your turn now");
			return "Result delivered. End your turn now, without further tool calls.";
		},
	});
}

function firstLine(text: string): string {
	const line = text.trim().split("\n")[0] ?? "";
	return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
