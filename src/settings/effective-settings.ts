/**
 * Effective settings: for every key of the catalog, the value that counts and where it comes from. A trusted
 * project's file wins over the global file, which wins over the key's default. A value that does not fit its
 * key (or a project value of a key that may only be set globally) is ignored and reported as a problem.
 */
import type { SettingsCatalog } from "./catalog.js";
import type { SettingDefinition } from "./definition.js";
import { blockedParent, type JsonRecord, valueAt } from "./settings-file.js";

/** Where a value comes from; `runtime` is a loaded session's own (a run-time switch such as set_steering_mode). */
export const SETTING_SOURCES = ["default", "global", "project", "runtime"] as const;
export type SettingSource = (typeof SETTING_SOURCES)[number];

/** One file's content, as a layer of the settings. */
export interface SettingsLayer {
	readonly path: string;
	readonly data: JsonRecord;
}

export interface ResolvedSetting {
	readonly definition: SettingDefinition;
	/** The value that counts (undefined: unset, no default). */
	readonly value: unknown;
	readonly source: Exclude<SettingSource, "runtime">;
	/** What each file holds for the key, as written (even when it does not fit). */
	readonly globalValue?: unknown;
	readonly projectValue?: unknown;
}

/** Something wrong with a key's value in the files, or with several keys together. */
export interface SettingProblem {
	readonly key: string;
	readonly message: string;
}

export interface ResolvedSettings {
	/** Every key of the catalog, in catalog order. */
	readonly values: ReadonlyMap<string, ResolvedSetting>;
	readonly problems: SettingProblem[];
}

/** Resolves every key from the global layer and, for a trusted project, the project layer. */
export function resolveSettings(catalog: SettingsCatalog, global: SettingsLayer, project?: SettingsLayer): ResolvedSettings {
	const values = new Map<string, ResolvedSetting>();
	const problems: SettingProblem[] = [];
	const valid = (definition: SettingDefinition, layer: SettingsLayer | undefined, value: unknown, scope: "global" | "project"): boolean => {
		if (layer === undefined) return false;
		const blocked = blockedParent(layer.data, definition.key);
		if (blocked !== undefined) {
			problems.push({ key: definition.key, message: `\`${blocked}\` in ${layer.path} must be an object (it holds \`${definition.key}\`)` });
			return false;
		}
		if (value === undefined) return false;
		if (!definition.scopes.includes(scope)) {
			problems.push({ key: definition.key, message: `\`${definition.key}\` can only be set in the global settings; ${layer.path} sets it (ignored)` });
			return false;
		}
		const problem = catalog.problem(definition, value);
		if (problem) problems.push({ key: definition.key, message: `${problem} in ${layer.path}` });
		return problem === undefined;
	};
	for (const definition of catalog.list()) {
		const globalValue = valueAt(global.data, definition.key);
		const projectValue = project ? valueAt(project.data, definition.key) : undefined;
		const fromProject = valid(definition, project, projectValue, "project");
		const fromGlobal = valid(definition, global, globalValue, "global");
		const [value, source] = fromProject
			? [projectValue, "project" as const]
			: fromGlobal
				? [globalValue, "global" as const]
				: [catalog.defaultOf(definition), "default" as const];
		values.set(definition.key, { definition, value, source, globalValue, projectValue });
	}
	return { values, problems };
}

/** The plain values of resolved settings, by key. */
export function valuesOf(resolved: ResolvedSettings): Map<string, unknown> {
	return new Map([...resolved.values].map(([key, setting]) => [key, setting.value]));
}
