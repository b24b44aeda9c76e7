/**
 * Workflows as a feature: an objective planned by a supervisor job and carried out by worker jobs in a git
 * worktree, then integrated. They are the service's, not one session's: every loaded session hears of them.
 */
import { serviceKey } from "../../protocol/service-key.js";
import { valuesOf } from "../../settings/effective-settings.js";
import { jobsFeature } from "../jobs/index.js";
import { defineFeature } from "../module.js";
import { todoFeature } from "../todo/index.js";
import { workflowCommands } from "./commands.js";
import { workflowEvents } from "./events.js";
import { workflowLimitsFrom, workflowSettingDefinitions } from "./settings.js";
import { WorkflowService } from "./workflow-service.js";
import { WorkflowStore } from "./workflow-store.js";

const key = serviceKey<WorkflowService>("workflows");

export const workflowsFeature = defineFeature({
	key,
	needs: [jobsFeature.key, todoFeature.key],
	settings: workflowSettingDefinitions,
	events: workflowEvents,
	commands: workflowCommands(key),
	start: (host) => {
		const todo = host.service(todoFeature.key);
		return new WorkflowService({
			store: new WorkflowStore(host.agentDir),
			jobs: host.service(jobsFeature.key),
			observe: (observer) => host.runtime.observe(observer),
			planOf: (sessionId) => {
				try {
					return todo.of(sessionId).plan();
				} catch {
					return undefined;
				}
			},
			publish: (event) => {
				for (const session of host.runtime.loadedSessions()) host.publish(session.id, event);
			},
			limits: () => workflowLimitsFrom(valuesOf(host.settings.effective())),
			knownTools: host.knownTools,
			warn: (line) => host.log(line),
		});
	},
	stop: (workflows) => workflows.stop(),
});
