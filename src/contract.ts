/**
 * Every command, event and setting the service speaks or honours: the core's, then each feature's, in loops over
 * the feature list. The dispatcher validates against these, `npm run docs:protocol` documents them
 * (docs/protocol.md, docs/protocol.schema.json, docs/settings.md) and types the client from them
 * (src/client/protocol.generated.ts). Listing them starts nothing: feature commands reach their services through
 * the command context.
 */
import { FEATURES } from "./features/index.js";
import type { FeatureModule } from "./features/module.js";
import { CommandRegistry } from "./protocol/command.js";
import { type DoctorSources, doctorCommands } from "./protocol/commands/doctor.js";
import {
	exportCommands,
	imageCommands,
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
import { SettingsCatalog } from "./settings/catalog.js";
import type { SettingDefinition } from "./settings/definition.js";
import { sessionSettingDefinitions } from "./settings/session-settings.js";
import { SettingsService } from "./settings/settings-service.js";

type Features = readonly FeatureModule<any>[];

/** Every setting Skiff honours: the sessions' own, then each feature's. */
export function settingDefinitions(features: Features = FEATURES): SettingDefinition[] {
	return [...sessionSettingDefinitions, ...features.flatMap((feature) => feature.settings ?? [])];
}

export function createSettingsCatalog(features: Features = FEATURES): SettingsCatalog {
	return new SettingsCatalog(settingDefinitions(features));
}

/**
 * The settings as start-up checks them, before the service announces itself (so a refusal never follows its
 * banner) and before pi is loaded: the global file parses and every value in it fits its key, then each
 * feature's own check. Throws the first refusal, naming the file and position or the key; returns warnings.
 */
export function checkSettingsAtStart(agentDir: string, features: Features = FEATURES): string[] {
	new SettingsService({ agentDir, catalog: createSettingsCatalog(features) }).checkGlobal();
	return features.flatMap((feature) => feature.checkSettings?.(agentDir) ?? []);
}

/**
 * Every command: the core's and each feature's. `doctor` gets the running service's facts and the features'
 * checks; without them (documentation, tests) it leaves those checks out.
 */
export function createCommandRegistry(features: Features = FEATURES, doctor: DoctorSources = {}): CommandRegistry {
	return new CommandRegistry().register(
		...runCommands,
		...stateCommands,
		...imageCommands,
		...modelCommands,
		...sessionCommands,
		...maintenanceCommands,
		...settingsCommands,
		...shellCommands,
		...exportCommands,
		...streamCommands,
		...treeCommands,
		...doctorCommands(doctor),
		...features.flatMap((feature) => feature.commands ?? []),
	);
}

/** Every command, for rendering the docs and checking responses against the schemas (nothing is started). */
export function createSchemaRegistry(features: Features = FEATURES): CommandRegistry {
	return createCommandRegistry(features);
}

export function createEventRegistry(features: Features = FEATURES): EventRegistry {
	return new EventRegistry().register(...coreEvents, ...features.flatMap((feature) => feature.events ?? []));
}
