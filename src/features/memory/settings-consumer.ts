/**
 * Memory in the settings catalog: every memory setting's own schema under `memory.` (the backend may also be
 * chosen by a trusted project; the server, its credentials and bank are the user's, global only), and how an
 * applied change reaches the live configurations (MemoryService.reload).
 */
import type { SettingsConsumer, SettingValues } from "../../settings/consumer.js";
import { defineSetting, type SettingDefinition } from "../../settings/definition.js";
import { valuesOf } from "../../settings/effective-settings.js";
import type { SettingsService } from "../../settings/settings-service.js";
import type { MemoryService } from "./memory-service.js";
import { MEMORY_SETTING_SCHEMAS, MemorySettingsError, type MemorySettings, MemorySettingsSchema, parseMemorySettings } from "./settings.js";

const PREFIX = "memory.";

export const memorySettingDefinitions: SettingDefinition[] = Object.keys(MEMORY_SETTING_SCHEMAS).map((name) =>
	defineSetting({
		key: `${PREFIX}${name}`,
		category: "memory",
		schema: MemorySettingsSchema.properties[name as keyof MemorySettings],
		scopes: name === "backend" ? ["global", "project"] : ["global"],
		applies: "live",
	}),
);

/** The memory settings the `memory.*` values make, read as at start-up (`$VAR` resolved). Throws MemorySettingsError. */
export function memorySettingsFrom(values: SettingValues, env: Record<string, string | undefined> = process.env): MemorySettings {
	const raw: Record<string, unknown> = {};
	for (const [key, value] of values) if (key.startsWith(PREFIX) && value !== undefined) raw[key.slice(PREFIX.length)] = value;
	return parseMemorySettings(raw, env);
}

/**
 * For MemoryService's `projectSettings`: the memory settings of a trusted project whose file sets memory keys.
 * A combination that does not work (a remote backend without a server) is reported and the defaults are used.
 */
export function projectMemorySettings(settings: SettingsService, cwd: string, log?: (line: string) => void): MemorySettings | undefined {
	const effective = settings.effective(cwd);
	const own = [...effective.values.values()].some((v) => v.source === "project" && v.definition.key.startsWith(PREFIX));
	if (!own) return undefined;
	try {
		return memorySettingsFrom(valuesOf(effective));
	} catch (error) {
		log?.(`settings: ${effective.projectPath}: ${(error as Error).message}; its sessions use the global memory settings`);
		return undefined;
	}
}

export function memorySettingsConsumer(memory: MemoryService): SettingsConsumer {
	return {
		validate: (values) => {
			try {
				memorySettingsFrom(values);
				return [];
			} catch (error) {
				if (!(error instanceof MemorySettingsError)) throw error;
				const key = /^memory\.[A-Za-z]+/.exec(error.message)?.[0] ?? `${PREFIX}backend`;
				return [{ key, message: error.message }];
			}
		},
		runtimeValues: (session) => ({ [`${PREFIX}backend`]: memory.binding(session.id).settings.backend }),
		apply: (change) => {
			if (change.keys.some((key) => key.startsWith(PREFIX))) memory.reload(memorySettingsFrom(change.global.after));
		},
	};
}
