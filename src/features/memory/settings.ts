/**
 * Memory settings: the `memory` object of `<agent-dir>/settings.json` (docs/memory.md). One TypeBox schema
 * holds every key with its description, default and allowed values; validation, defaults, error messages
 * and redaction are all read off it. A missing file or object means the local backend. The remote token may
 * be a `$ENV_VAR` reference, resolved here: an unset variable is an error, never a literal token.
 */
import { join } from "node:path";
import { Type, type Static } from "typebox";
import { Value } from "typebox/value";
import { ENV_REFERENCE, requirement, type SettingSchema } from "../../settings/setting-schema.js";
import { compileOnFirstUse } from "../../shared/compile-on-first-use.js";
import { REDACTED } from "../../shared/redact.js";
import { NotRegularFileError, readRegularFileSync } from "../../shared/regular-file.js";

/** How a key's schema is read and what it accepts in words: the settings catalog's, shared by memory's errors. */
export { requirement, type SettingSchema };

export const BACKENDS = ["local", "remote", "off"] as const;
export const SCOPINGS = ["global", "per-project", "per-project-tagged"] as const;
export const BUDGETS = ["low", "mid", "high"] as const;
export const RECALL_TYPES = ["world", "experience", "observation"] as const;
/** Upper bound of every timeout (the lower bound is 1 ms: a 0 ms deadline would fail every call). */
export const MAX_TIMEOUT_MS = 600_000;
/** Upper bound of the tokens recall may be asked for. */
export const MAX_RECALL_TOKENS = 65_536;
/** Longest bank id or prefix. */
export const MAX_BANK_ID_LENGTH = 128;

/**
 * Bank ids and prefixes: safe in a URL path segment, never `.` or `..`. `allowedText` says so in words, for
 * errors and the settings catalog (a pattern is not something to show a user).
 */
const bankId = (options: { description: string; default?: string }) =>
	Type.String({
		...options,
		minLength: 1,
		maxLength: MAX_BANK_ID_LENGTH,
		pattern: "^(?!\\.\\.?$)[A-Za-z0-9._:-]+$",
		allowedText: `use only letters, digits and . _ : - (1 to ${MAX_BANK_ID_LENGTH} characters, not . or ..)`,
	});

const timeout = (operation: string, milliseconds: number) =>
	Type.Integer({ description: `Deadline of ${operation}, in milliseconds.`, default: milliseconds, minimum: 1, maximum: MAX_TIMEOUT_MS });

/**
 * Every memory setting. String values are trimmed, and a blank string or null means unset. Keys marked
 * `writeOnly` are secrets: views show them only as the redaction marker.
 */
export const MemorySettingsSchema = Type.Object(
	{
		backend: Type.Enum(BACKENDS, { description: "The active memory backend.", default: "local" }),
		remoteApiUrl: Type.Optional(
			Type.String({
				description: "The memory server's base URL: http(s), no credentials, query or fragment; a path prefix is kept. Required for remote.",
			}),
		),
		remoteApiToken: Type.Optional(
			Type.String({
				description: "Bearer token, sent only in Authorization: a literal, or $ENV_VAR / ${ENV_VAR} read from the environment.",
				writeOnly: true,
			}),
		),
		remoteAllowInsecure: Type.Boolean({
			description: "Allows a plaintext http URL and plaintext redirect hops (for a trusted self-hosted server).",
			default: false,
		}),
		remoteBankId: bankId({ description: "Base bank id.", default: "rpi" }),
		remoteBankIdPrefix: Type.Optional(bankId({ description: "Prefix: the base bank id becomes <prefix>-<bankId>." })),
		remoteScoping: Type.Enum(SCOPINGS, { description: "Namespace mode: one bank, a bank per project, or one bank with project tags.", default: "per-project-tagged" }),
		remoteBankMission: Type.Optional(Type.String({ description: "Reflect mission, applied when the bank is ensured." })),
		remoteRetainMission: Type.Optional(Type.String({ description: "Retain mission, applied when the bank is ensured." })),
		remoteInjection: Type.Boolean({
			description: "Adds recalled memory for the latest ask as hidden context at turn start.",
			default: false,
		}),
		remoteRecallBudget: Type.Enum(BUDGETS, { description: "Budget for recall and reflect.", default: "mid" }),
		remoteRecallMaxTokens: Type.Integer({ description: "Tokens requested from recall and reflect.", default: 1024, minimum: 1, maximum: MAX_RECALL_TOKENS }),
		remoteRecallTypes: Type.Array(Type.Enum(RECALL_TYPES), {
			description: "Memory types recalled and reflected on (repeats are dropped).",
			default: ["world", "experience"],
			minItems: 1,
		}),
		remoteRequestTimeoutMs: timeout("the bank PUT (sent before every retain and reflect)", 30_000),
		remoteRecallTimeoutMs: timeout("recall", 30_000),
		remoteRetainTimeoutMs: timeout("retain", 60_000),
		remoteReflectTimeoutMs: timeout("reflect", 120_000),
	},
	{ additionalProperties: false },
);

export type MemorySettings = Static<typeof MemorySettingsSchema>;
export type Backend = MemorySettings["backend"];

/** Compiled when a settings file first has a `memory` object: not on every start (about 4 ms). */
const settingsCheck = compileOnFirstUse(MemorySettingsSchema);
/** Every key's schema, for the settings catalog: description, default, allowed values, secrecy. */
export const MEMORY_SETTING_SCHEMAS = MemorySettingsSchema.properties as Readonly<Record<keyof MemorySettings, SettingSchema>>;

/** The schema of a key, if it is a memory setting (own keys only: `__proto__` is no setting). */
function settingSchema(key: string): SettingSchema | undefined {
	return Object.hasOwn(MEMORY_SETTING_SCHEMAS, key) ? MEMORY_SETTING_SCHEMAS[key as keyof MemorySettings] : undefined;
}

/** The settings when nothing is configured: every key's schema default. */
export function defaultMemorySettings(): MemorySettings {
	return Value.Create(MemorySettingsSchema);
}

export const DEFAULT_MEMORY_SETTINGS: MemorySettings = defaultMemorySettings();

export class MemorySettingsError extends Error {}

/**
 * Parses the `memory` object (undefined: defaults). `env` resolves `$VAR` token references. A key that is no
 * memory setting is left alone, as settings.json's unknown keys are (a newer Skiff's, or pi's), and told to
 * `warn`; a known key with a value that does not fit is an error.
 */
export function parseMemorySettings(raw: unknown, env: Record<string, string | undefined> = process.env, warn: (line: string) => void = () => {}): MemorySettings {
	if (raw === undefined || raw === null) return defaultMemorySettings();
	if (typeof raw !== "object" || Array.isArray(raw)) throw new MemorySettingsError("memory must be an object");
	const given: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(raw)) {
		const schema = settingSchema(key);
		if (schema === undefined) {
			warn(`memory.${shownKey(key)} is not a memory setting; it is ignored (and left in the file)`);
			continue;
		}
		const text = schema.type === "string" ? normalizeText(value) : value;
		if (text !== undefined) given[key] = text;
	}
	const settings: Record<string, unknown> = { ...defaultMemorySettings(), ...given };
	const [first] = settingsCheck().Errors(settings);
	if (first) throw new MemorySettingsError(describeError(first.instancePath, settings));
	const valid = settings as MemorySettings;
	valid.remoteRecallTypes = [...new Set(valid.remoteRecallTypes)];
	if (valid.remoteApiUrl !== undefined) valid.remoteApiUrl = validateBaseUrl(valid.remoteApiUrl);
	if (valid.remoteApiToken !== undefined) valid.remoteApiToken = resolveToken(valid.remoteApiToken, env);
	if (valid.backend === "remote" && valid.remoteApiUrl === undefined) {
		throw new MemorySettingsError("memory.remoteApiUrl is required when memory.backend is remote");
	}
	return valid;
}

/** A key as a warning names it: as written when it reads as a key, else quoted and cut (it is the file's text). */
function shownKey(key: string): string {
	return /^[A-Za-z0-9_-]{1,64}$/.test(key) ? key : `${JSON.stringify(key.slice(0, 64))}${key.length > 64 ? "…" : ""}`;
}

/** A text setting as given: trimmed; blank or null is unset (undefined). Other values are left to the schema. */
function normalizeText(value: unknown): unknown {
	if (value === null) return undefined;
	if (typeof value !== "string") return value;
	return value.trim() === "" ? undefined : value.trim();
}

/** The error for the first failing key: it names the key and says what is allowed. */
function describeError(instancePath: string, settings: Record<string, unknown>): string {
	const key = instancePath.split("/")[1] ?? "";
	const schema = settingSchema(key);
	if (schema === undefined) return "memory is not a valid memory settings object";
	const value = settings[key];
	if (schema.type === "string" && typeof value !== "string") return `memory.${key} must be a string`;
	const got = schema.enum ? ` (got ${JSON.stringify(value)})` : "";
	return `memory.${key} must ${requirement(schema)}${got}`;
}

/** A base URL: http(s), no credentials, query or fragment. Plaintext is checked per call (remoteAllowInsecure). */
function validateBaseUrl(text: string): string {
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		throw new MemorySettingsError("memory.remoteApiUrl is not a valid URL");
	}
	if (url.protocol !== "https:" && url.protocol !== "http:") throw new MemorySettingsError("memory.remoteApiUrl must be an http or https URL");
	if (url.username || url.password) throw new MemorySettingsError("memory.remoteApiUrl must not contain credentials (use remoteApiToken)");
	if (url.search || url.hash) throw new MemorySettingsError("memory.remoteApiUrl must not have a query or fragment");
	return url.toString().replace(/\/+$/, "");
}

/** `$NAME` or `${NAME}` reads the environment; an unset or empty variable is a configuration error. */
function resolveToken(value: string, env: Record<string, string | undefined>): string {
	const reference = ENV_REFERENCE.exec(value);
	if (!reference) return value;
	const name = (reference[1] ?? reference[2])!;
	const resolved = env[name]?.trim();
	if (!resolved) throw new MemorySettingsError(`memory.remoteApiToken refers to $${name}, which is not set`);
	return resolved;
}

/** Reads `<agent-dir>/settings.json`; a missing file means defaults. Unknown keys go to `warn` (see above). */
export function loadMemorySettings(agentDir: string, env: Record<string, string | undefined> = process.env, warn?: (line: string) => void): MemorySettings {
	const path = join(agentDir, "settings.json");
	let text: string;
	try {
		text = readRegularFileSync(path, "follow"); // never waits on a FIFO put there (src/shared/regular-file.ts)
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return defaultMemorySettings();
		if (error instanceof NotRegularFileError) throw new MemorySettingsError(error.message);
		throw new MemorySettingsError(`${path} cannot be read: ${(error as Error).message}`);
	}
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch (error) {
		throw new MemorySettingsError(`${path} is not valid JSON: ${(error as Error).message}`);
	}
	if (typeof json !== "object" || json === null || Array.isArray(json)) throw new MemorySettingsError(`${path} must hold a JSON object`);
	return parseMemorySettings((json as Record<string, unknown>).memory, env, warn);
}

/** The settings as any view shows them: every secret (`writeOnly`) key replaced by the redaction marker. */
export function redactedSettings(settings: MemorySettings): Record<string, unknown> {
	const view: Record<string, unknown> = { ...settings };
	for (const [key, schema] of Object.entries(MEMORY_SETTING_SCHEMAS)) {
		if (schema.writeOnly === true && view[key] !== undefined) view[key] = REDACTED;
	}
	return view;
}
