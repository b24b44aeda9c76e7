/**
 * What runs on settings: the agent sessions, memory, later features. Each consumer checks a configuration
 * as a whole, reports the values a session switched at run time, and makes an applied change take effect.
 * The composition root lists them (src/core.ts).
 */
import type { LoadedSession } from "../agent/runtime-manager.js";
import type { SettingProblem } from "./effective-settings.js";

/** Effective values by key. */
export type SettingValues = ReadonlyMap<string, unknown>;

/** A loaded session a change reaches, with its effective values before and after it. */
export interface SessionChange {
	readonly session: LoadedSession;
	readonly before: SettingValues;
	readonly after: SettingValues;
}

/** An applied change of the files (a draft applied, a project trusted or not). */
export interface SettingsChange {
	/** Keys whose effective value changed somewhere. */
	readonly keys: readonly string[];
	/** The values outside any trusted project, before and after. */
	readonly global: { readonly before: SettingValues; readonly after: SettingValues };
	/** The loaded sessions the change reaches (all for the global file; those of the project for a project file). */
	readonly sessions: readonly SessionChange[];
}

export interface SettingsConsumer {
	/** Problems of a configuration as a whole (keys that go together, references that must resolve). */
	validate?(values: SettingValues): SettingProblem[];
	/** The values a loaded session runs with now, for keys a command can switch at run time. */
	runtimeValues?(session: LoadedSession): Record<string, unknown>;
	/** Makes an applied change take effect in what runs (the files are already written). */
	apply?(change: SettingsChange): Promise<void> | void;
}
