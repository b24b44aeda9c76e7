/**
 * What a setting is: one key of the settings files, with a TypeBox schema of its value (its description,
 * default and allowed values are annotations of that schema), where it may be set, when a change takes
 * effect, and whether it is a secret (`writeOnly` in the schema). Features define their settings beside their
 * code; the composition root lists them all (src/contract.ts), and the catalog, the commands and
 * docs/settings.md are read off that one list.
 */
import type { TSchema } from "typebox";
import { REDACTED } from "../shared/redact.js";
import type { SettingSchema } from "./setting-schema.js";

/** Where a key may be set: the global file, or a trusted project's file too. */
export const SETTING_SCOPES = ["global", "project"] as const;
export type SettingScope = (typeof SETTING_SCOPES)[number];

/**
 * When a changed value takes effect: at once in loaded sessions (`live`), in sessions created from now on
 * (`newSessions`), or only when the service starts again (`restart`).
 */
export const SETTING_APPLIES = ["live", "newSessions", "restart"] as const;
export type SettingApplies = (typeof SETTING_APPLIES)[number];

export interface SettingDefinition {
	/** A dotted path in the settings file: `compaction.enabled` is `{"compaction": {"enabled": …}}`. */
	readonly key: string;
	/** Groups keys in docs/settings.md and the panel. */
	readonly category: string;
	/** The value's schema, annotated with `description`, `default` and, for secrets, `writeOnly`. */
	readonly schema: TSchema;
	/** `["global"]`, or `["global", "project"]` when a trusted project may override it. */
	readonly scopes: readonly SettingScope[];
	readonly applies: SettingApplies;
	/**
	 * For a value that holds secrets among other things (an MCP server's environment and headers): the value as
	 * views, errors and logs show it, its secrets masked with the redaction marker. It gets a copy to change.
	 */
	readonly redact?: (value: unknown) => unknown;
}

/** Identity helper for a definition (and a place a reader finds every setting by searching for it). */
export function defineSetting(definition: SettingDefinition): SettingDefinition {
	return definition;
}

/** The schema of a definition as the catalog reads it. */
export function schemaOf(definition: SettingDefinition): SettingSchema {
	return definition.schema as unknown as SettingSchema;
}

/** A secret is never shown, logged or written through the settings commands (only a `$VAR` reference). */
export function isSecret(definition: SettingDefinition): boolean {
	return schemaOf(definition).writeOnly === true;
}

/** A value as views and errors show it: a secret as the marker, a value holding secrets with them masked. */
export function shownValue(definition: SettingDefinition, value: unknown): unknown {
	if (isSecret(definition)) return REDACTED;
	const copy = structuredClone(value);
	return definition.redact ? definition.redact(copy) : copy;
}

/**
 * Whether a value to write holds the redaction marker where its key masks secrets: a view's value written back
 * would replace the secrets with the marker.
 */
export function holdsMask(definition: SettingDefinition, value: unknown): boolean {
	return definition.redact !== undefined && (JSON.stringify(value) ?? "").includes(REDACTED);
}
