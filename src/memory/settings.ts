/**
 * Memory settings: the `memory` object of `<agent-dir>/settings.json` (spec section 2). Every key is
 * validated, with errors that name it; a missing file or object means the local backend. The remote token
 * may be a `$ENV_VAR` reference, resolved here: an unset variable is an error, never a literal token.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const BACKENDS = ["local", "remote", "off"] as const;
export const SCOPINGS = ["global", "per-project", "per-project-tagged"] as const;
export const BUDGETS = ["low", "mid", "high"] as const;
export const RECALL_TYPES = ["world", "experience", "observation"] as const;
/** Bounds for timeouts read from settings (a 0 ms deadline would fail every call). */
export const MAX_TIMEOUT_MS = 600_000;

export type Backend = (typeof BACKENDS)[number];

export interface MemorySettings {
	backend: Backend;
	remoteApiUrl?: string;
	/** The resolved token (never the `$VAR` text). Shown only through `redactedSettings`. */
	remoteApiToken?: string;
	remoteAllowInsecure: boolean;
	remoteBankId: string;
	remoteBankIdPrefix?: string;
	remoteScoping: (typeof SCOPINGS)[number];
	remoteBankMission?: string;
	remoteRetainMission?: string;
	remoteInjection: boolean;
	remoteRecallBudget: (typeof BUDGETS)[number];
	remoteRecallMaxTokens: number;
	remoteRecallTypes: Array<(typeof RECALL_TYPES)[number]>;
	remoteRequestTimeoutMs: number;
	remoteRecallTimeoutMs: number;
	remoteRetainTimeoutMs: number;
	remoteReflectTimeoutMs: number;
}

export const DEFAULT_MEMORY_SETTINGS: MemorySettings = {
	backend: "local",
	remoteAllowInsecure: false,
	remoteBankId: "rpi",
	remoteScoping: "per-project-tagged",
	remoteInjection: false,
	remoteRecallBudget: "mid",
	remoteRecallMaxTokens: 1024,
	remoteRecallTypes: ["world", "experience"],
	remoteRequestTimeoutMs: 30_000,
	remoteRecallTimeoutMs: 30_000,
	remoteRetainTimeoutMs: 60_000,
	remoteReflectTimeoutMs: 120_000,
};

/** Bank ids and prefixes: safe in a URL path segment, never `.` or `..`. */
const BANK_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

export const REDACTION_MARKER = "[REDACTED]";

export class MemorySettingsError extends Error {}

/** Parses the `memory` object (undefined: defaults). `env` resolves `$VAR` token references. */
export function parseMemorySettings(raw: unknown, env: Record<string, string | undefined> = process.env): MemorySettings {
	if (raw === undefined || raw === null) return { ...DEFAULT_MEMORY_SETTINGS };
	if (typeof raw !== "object" || Array.isArray(raw)) throw new MemorySettingsError("memory must be an object");
	const input = raw as Record<string, unknown>;
	const known = new Set<string>([...Object.keys(DEFAULT_MEMORY_SETTINGS), "remoteApiUrl", "remoteApiToken", "remoteBankIdPrefix", "remoteBankMission", "remoteRetainMission"]);
	for (const key of Object.keys(input)) {
		if (!known.has(key)) throw new MemorySettingsError(`memory.${key} is not a memory setting`);
	}
	const settings: MemorySettings = { ...DEFAULT_MEMORY_SETTINGS, remoteRecallTypes: [...DEFAULT_MEMORY_SETTINGS.remoteRecallTypes] };
	const get = (key: string) => input[key];
	const oneOf = <T extends string>(key: string, allowed: readonly T[]): T | undefined => {
		const value = get(key);
		if (value === undefined) return undefined;
		if (typeof value !== "string" || !allowed.includes(value as T)) {
			throw new MemorySettingsError(`memory.${key} must be one of ${allowed.join(", ")} (got ${JSON.stringify(value)})`);
		}
		return value as T;
	};
	const bool = (key: string): boolean | undefined => {
		const value = get(key);
		if (value === undefined) return undefined;
		if (typeof value !== "boolean") throw new MemorySettingsError(`memory.${key} must be true or false`);
		return value;
	};
	const text = (key: string): string | undefined => {
		const value = get(key);
		if (value === undefined || value === null) return undefined;
		if (typeof value !== "string") throw new MemorySettingsError(`memory.${key} must be a string`);
		return value.trim() === "" ? undefined : value.trim();
	};
	const integer = (key: string, min: number, max: number): number | undefined => {
		const value = get(key);
		if (value === undefined) return undefined;
		if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
			throw new MemorySettingsError(`memory.${key} must be an integer from ${min} to ${max}`);
		}
		return value;
	};
	const bankId = (key: string): string | undefined => {
		const value = text(key);
		if (value !== undefined && (!BANK_ID_PATTERN.test(value) || value === "." || value === "..")) {
			throw new MemorySettingsError(`memory.${key} must use only letters, digits and . _ : - (and not be . or ..)`);
		}
		return value;
	};

	settings.backend = oneOf("backend", BACKENDS) ?? settings.backend;
	const url = text("remoteApiUrl");
	if (url !== undefined) settings.remoteApiUrl = validateBaseUrl(url);
	const token = text("remoteApiToken");
	if (token !== undefined) settings.remoteApiToken = resolveToken(token, env);
	settings.remoteAllowInsecure = bool("remoteAllowInsecure") ?? settings.remoteAllowInsecure;
	settings.remoteBankId = bankId("remoteBankId") ?? settings.remoteBankId;
	settings.remoteBankIdPrefix = bankId("remoteBankIdPrefix");
	settings.remoteScoping = oneOf("remoteScoping", SCOPINGS) ?? settings.remoteScoping;
	settings.remoteBankMission = text("remoteBankMission");
	settings.remoteRetainMission = text("remoteRetainMission");
	settings.remoteInjection = bool("remoteInjection") ?? settings.remoteInjection;
	settings.remoteRecallBudget = oneOf("remoteRecallBudget", BUDGETS) ?? settings.remoteRecallBudget;
	settings.remoteRecallMaxTokens = integer("remoteRecallMaxTokens", 1, 65_536) ?? settings.remoteRecallMaxTokens;
	const types = get("remoteRecallTypes");
	if (types !== undefined) {
		if (!Array.isArray(types) || types.length === 0 || types.some((t) => typeof t !== "string" || !(RECALL_TYPES as readonly string[]).includes(t))) {
			throw new MemorySettingsError(`memory.remoteRecallTypes must be a non-empty list of ${RECALL_TYPES.join(", ")}`);
		}
		settings.remoteRecallTypes = [...new Set(types)] as MemorySettings["remoteRecallTypes"];
	}
	for (const key of ["remoteRequestTimeoutMs", "remoteRecallTimeoutMs", "remoteRetainTimeoutMs", "remoteReflectTimeoutMs"] as const) {
		settings[key] = integer(key, 1, MAX_TIMEOUT_MS) ?? settings[key];
	}
	if (settings.backend === "remote" && settings.remoteApiUrl === undefined) {
		throw new MemorySettingsError("memory.remoteApiUrl is required when memory.backend is remote");
	}
	return settings;
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
	const reference = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$/.exec(value);
	if (!reference) return value;
	const name = (reference[1] ?? reference[2])!;
	const resolved = env[name]?.trim();
	if (!resolved) throw new MemorySettingsError(`memory.remoteApiToken refers to $${name}, which is not set`);
	return resolved;
}

/** Reads `<agent-dir>/settings.json`; a missing file means defaults. */
export function loadMemorySettings(agentDir: string, env: Record<string, string | undefined> = process.env): MemorySettings {
	const path = join(agentDir, "settings.json");
	let text: string;
	try {
		text = readFileSync(path, "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return { ...DEFAULT_MEMORY_SETTINGS };
		throw new MemorySettingsError(`${path} cannot be read: ${(error as Error).message}`);
	}
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch (error) {
		throw new MemorySettingsError(`${path} is not valid JSON: ${(error as Error).message}`);
	}
	if (typeof json !== "object" || json === null || Array.isArray(json)) throw new MemorySettingsError(`${path} must hold a JSON object`);
	return parseMemorySettings((json as Record<string, unknown>).memory, env);
}

/** The settings as any view shows them: the token replaced by the redaction marker. */
export function redactedSettings(settings: MemorySettings): Record<string, unknown> {
	const { remoteApiToken, ...rest } = settings;
	return remoteApiToken === undefined ? rest : { ...rest, remoteApiToken: REDACTION_MARKER };
}
