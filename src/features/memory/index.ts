/**
 * Memory as a feature: local notes, a remote Hindsight server, or off, as every session's tools and recall
 * context; its settings, commands and doctor check. Also the public face of memory for other features
 * (personas keep their own local store, and keep what they read of their files in a FileCache too).
 */
import { serviceKey } from "../../protocol/service-key.js";
import { defineFeature } from "../module.js";
import { memoryCommands, memoryDoctorCheck } from "./commands.js";
import { MemoryService } from "./memory-service.js";
import { memorySettingDefinitions, memorySettingsConsumer, projectMemorySettings } from "./settings-consumer.js";
import { loadMemorySettings } from "./settings.js";

const key = serviceKey<MemoryService>("memory");

export const memoryFeature = defineFeature({
	key,
	settings: memorySettingDefinitions,
	commands: memoryCommands(key),
	checkSettings: (agentDir) => {
		const warnings: string[] = [];
		loadMemorySettings(agentDir, process.env, (line) => warnings.push(`settings: ${line}`)); // also resolves the token's $VAR
		return warnings;
	},
	start: (host) => {
		// Checked by checkSettings before the service announced itself (its warnings were given then).
		const settings = loadMemorySettings(host.agentDir);
		const memory = new MemoryService(host.agentDir, settings, {
			log: (line) => host.log(line),
			projectSettings: (cwd) => projectMemorySettings(host.settings, cwd, (line) => host.log(line)),
		});
		host.settings.addConsumer(memorySettingsConsumer(memory));
		return memory;
	},
	sessions: {
		serves: ["top-level", "job", "persona"],
		contribute: (memory, origin) => {
			const features = memory.forSession(origin);
			return { features, attach: (sessionId) => memory.attach(sessionId, features) };
		},
	},
	doctor: memoryDoctorCheck,
});

export { FileCache } from "./file-cache.js";
export { LocalMemoryStore, personaStorePath } from "./local-store.js";
