/**
 * Personas as a feature: named agents with their own memory and continuity, run as jobs. Starting it makes the
 * personas agents of the jobs' catalog.
 */
import { serviceKey } from "../../protocol/service-key.js";
import { jobsFeature } from "../jobs/index.js";
import { defineFeature } from "../module.js";
import { personaCommands } from "./commands.js";
import { PersonaStore } from "./persona-store.js";

const key = serviceKey<PersonaStore>("personas");

export const personasFeature = defineFeature({
	key,
	needs: [jobsFeature.key],
	commands: personaCommands(key, jobsFeature.key),
	start: (host) => {
		const personas = new PersonaStore({
			agentDir: host.agentDir,
			trusted: (cwd) => host.settings.effective(cwd).trusted,
			knownTools: host.knownTools,
			stopping: () => host.runtime.shuttingDown,
			warn: (line) => host.log(line),
		});
		host.service(jobsFeature.key).usePersonas(personas);
		return personas;
	},
});
