/**
 * What a setting's TypeBox schema says, read as plain JSON Schema: the keywords and annotations that views,
 * error messages and the rendered catalog show. `allowedText` says in words what a pattern allows (a pattern is
 * not something to show a user); `writeOnly` marks a secret.
 */

/** The keywords and annotations of a setting's schema that the settings feature reads. */
export interface SettingSchema {
	description?: string;
	default?: unknown;
	type?: string;
	enum?: readonly string[];
	minimum?: number;
	maximum?: number;
	minLength?: number;
	items?: SettingSchema;
	minItems?: number;
	writeOnly?: boolean;
	allowedText?: string;
}

/**
 * What a key accepts, in words read off its schema, as the rest of a sentence after "must": `be one of
 * local, remote, off`, `be an integer from 1 to 600000`, ... Errors end with it; the catalog shows it.
 */
export function requirement(s: SettingSchema): string {
	if (s.allowedText) return s.allowedText;
	if (s.enum) return `be one of ${s.enum.join(", ")}`;
	if (s.type === "boolean") return "be true or false";
	if (s.type === "integer") return `be an integer from ${s.minimum} to ${s.maximum}`;
	if (s.type === "array" && s.items) {
		return `be a ${s.minItems ? "non-empty " : ""}list of ${requirement(s.items).replace(/^be one of /, "")}`;
	}
	return s.minLength ? "be a non-empty string" : "be a string";
}

/** `$NAME` or `${NAME}`: a reference to an environment variable, the only way a secret is written by a command. */
export const ENV_REFERENCE = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$/;
