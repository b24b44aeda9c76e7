/**
 * Subagent jobs as a feature: the `task` tool of top-level sessions, the job commands and event, the job limits
 * as settings. Also the public face of jobs for the features built on them (personas, workflows).
 */
import { valuesOf } from "../../settings/effective-settings.js";
import { serviceKey } from "../../protocol/service-key.js";
import { defineFeature } from "../module.js";
import { jobCommands } from "./commands.js";
import { loadCatalog } from "./definitions.js";
import { jobEvents } from "./events.js";
import { JobService } from "./job-service.js";
import { JobStore } from "./job-store.js";
import { jobLimitsFrom, jobSettingDefinitions } from "./settings.js";

const key = serviceKey<JobService>("jobs");

export const jobsFeature = defineFeature({
	key,
	settings: jobSettingDefinitions,
	events: jobEvents,
	commands: jobCommands(key),
	start: (host) =>
		new JobService({
			runtime: host.runtime,
			store: new JobStore(host.agentDir),
			publish: (id, event) => host.publish(id, event),
			limits: () => jobLimitsFrom(valuesOf(host.settings.effective())),
			catalog: (cwd) => loadCatalog({ agentDir: host.agentDir, cwd, trusted: host.settings.effective(cwd).trusted, knownTools: host.knownTools }),
			warn: (line) => host.log(line),
		}),
	// Delegation belongs to the sessions a client opened: a job's child does its own task.
	sessions: {
		serves: ["top-level"],
		contribute: (jobs, origin) => {
			const task = jobs.taskTool(origin.sessionId);
			return { features: { tools: [task], activeToolNames: () => [task.name], contextForPrompt: async () => undefined } };
		},
	},
});

export type { JobService, PersonaAgents } from "./job-service.js";
export { AGENT_NAME_PATTERN, type AgentDefinition, type CatalogEntry, MAX_DEFINITION_BYTES, parseDefinition, TASK_AGENT } from "./definitions.js";
export { FINISHED_STATUSES, type Job, JobSchema, type JobStatus, MAX_TASK_CHARS } from "./schemas.js";
