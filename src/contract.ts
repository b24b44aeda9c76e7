/**
 * Every command, event and setting the service speaks or honours, registered in one place: the core's and
 * each feature's. The dispatcher validates against these, `npm run docs:protocol` documents them
 * (docs/protocol.md, docs/protocol.schema.json, docs/settings.md) and types the client from them
 * (src/client/protocol.generated.ts).
 */
import { collabCommands } from "./collab/commands.js";
import { collabEvents } from "./collab/events.js";
import type { CollabRooms } from "./collab/rooms.js";
import { SettingsCatalog } from "./features/settings/catalog.js";
import { settingsFeatureCommands } from "./features/settings/commands.js";
import type { SettingDefinition } from "./features/settings/definition.js";
import { settingsEvents } from "./features/settings/events.js";
import { sessionSettingDefinitions } from "./features/settings/session-settings.js";
import { SettingsService } from "./features/settings/settings-service.js";
import { memoryCommands, memoryDoctorCheck } from "./memory/commands.js";
import { MemoryService } from "./memory/memory-service.js";
import { memorySettingDefinitions } from "./memory/settings-consumer.js";
import { DEFAULT_MEMORY_SETTINGS } from "./memory/settings.js";
import { CommandRegistry } from "./protocol/command.js";
import { doctorCommands, type ServiceFacts } from "./protocol/commands/doctor.js";
import {
	exportCommands,
	maintenanceCommands,
	modelCommands,
	runCommands,
	sessionCommands,
	settingsCommands,
	shellCommands,
	stateCommands,
	streamCommands,
	treeCommands,
} from "./protocol/commands/index.js";
import { EventRegistry } from "./protocol/event.js";
import { coreEvents } from "./protocol/events/core-events.js";

/** The services features' command handlers need. */
export interface ContractFeatures {
	memory: MemoryService;
	settings: SettingsService;
	/** Facts of the running service for `doctor` (absent where none runs: documentation, tests). */
	service?: ServiceFacts;
	/** The listener's collaboration rooms (absent without a listener: the collab commands are then unavailable). */
	collab?: CollabRooms;
}

/** Every setting Skiff honours: the sessions' and each feature's (a feature with settings adds its list here). */
export function settingDefinitions(): SettingDefinition[] {
	return [...sessionSettingDefinitions, ...memorySettingDefinitions];
}

export function createSettingsCatalog(): SettingsCatalog {
	return new SettingsCatalog(settingDefinitions());
}

export function createCommandRegistry(features: ContractFeatures): CommandRegistry {
	return new CommandRegistry().register(
		...memoryCommands(features.memory),
		...settingsFeatureCommands(features.settings),
		...collabCommands(features.collab),
		...runCommands,
		...stateCommands,
		...modelCommands,
		...sessionCommands,
		...maintenanceCommands,
		...settingsCommands,
		...shellCommands,
		...exportCommands,
		...streamCommands,
		...treeCommands,
		...doctorCommands({ service: features.service, checks: [memoryDoctorCheck(features.memory)] }),
	);
}

/**
 * Every command, with services that are never called: for rendering the docs and checking responses against
 * the schemas, which read only names and schemas.
 */
export function createSchemaRegistry(): CommandRegistry {
	return createCommandRegistry({
		memory: new MemoryService("", DEFAULT_MEMORY_SETTINGS),
		settings: new SettingsService({ agentDir: "", catalog: createSettingsCatalog() }),
	});
}

export function createEventRegistry(): EventRegistry {
	return new EventRegistry().register(...coreEvents, ...settingsEvents, ...collabEvents);
}
