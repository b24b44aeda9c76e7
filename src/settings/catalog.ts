/**
 * The settings catalog: every key Skiff honours, from the definitions the composition root lists. It checks a
 * value against its key's schema and says what is wrong in a sentence naming the key and what is allowed,
 * without ever repeating a secret.
 */
import { compileOnFirstUse } from "../shared/compile-on-first-use.js";
import { echo } from "../protocol/echo.js";
import { isSecret, schemaOf, type SettingDefinition, shownValue } from "./definition.js";
import { requirement } from "./setting-schema.js";

/** Keys are dotted paths of plain names: safe as JSON object keys and never `__proto__`-like. */
const KEY_PATTERN = /^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*)*$/;

export class SettingsCatalog {
	private readonly byKey = new Map<string, { definition: SettingDefinition; check: (value: unknown) => boolean }>();

	constructor(definitions: readonly SettingDefinition[]) {
		for (const definition of definitions) {
			const { key } = definition;
			if (!KEY_PATTERN.test(key)) throw new Error(`Setting key ${key} is not a dotted path of plain names`);
			if (this.byKey.has(key)) throw new Error(`Setting ${key} is defined twice`);
			for (const other of this.byKey.keys()) {
				if (other.startsWith(`${key}.`) || key.startsWith(`${other}.`)) throw new Error(`Setting ${key} and ${other} overlap: one holds the other`);
			}
			if (!definition.scopes.includes("global")) throw new Error(`Setting ${key} must be settable globally`);
			const validator = compileOnFirstUse(definition.schema);
			this.byKey.set(key, { definition, check: (value) => validator().Check(value) });
		}
	}

	/** Every definition, in the order they were listed. */
	list(): SettingDefinition[] {
		return [...this.byKey.values()].map((entry) => entry.definition);
	}

	get(key: string): SettingDefinition | undefined {
		return this.byKey.get(key)?.definition;
	}

	/** The value a key has when no file sets it (undefined: unset). */
	defaultOf(definition: SettingDefinition): unknown {
		const value = schemaOf(definition).default;
		return value === undefined ? undefined : structuredClone(value);
	}

	/**
	 * What is wrong with `value` for this key, as a sentence naming the key and what is allowed (the value is
	 * quoted briefly, never for a secret), or undefined when it fits.
	 */
	problem(definition: SettingDefinition, value: unknown): string | undefined {
		if (this.byKey.get(definition.key)!.check(value)) return undefined;
		const shown = value === undefined ? undefined : shownValue(definition, value);
		const got = isSecret(definition) ? "" : ` (got ${echo(JSON.stringify(shown) ?? String(shown))})`;
		return `\`${definition.key}\` must ${requirement(schemaOf(definition))}${got}`;
	}
}
