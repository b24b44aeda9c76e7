/**
 * MCP servers in the settings files: the `mcpServers` key, in the shape other clients already use
 * (`{"<name>": {"command", "args", "env", "cwd"}}` for a server run as a child process, `{"url", "headers"}` for
 * one over HTTP), with `enabled`, `timeoutMs` and a tool allow-list of Skiff's own. The schema checks the shape;
 * what only makes sense together (a command or a url, `$VAR` references that must resolve, a plaintext URL) is
 * checked per server when it starts, so one bad server never stops the others or the service.
 */
import { createHash } from "node:crypto";
import { isAbsolute, join, resolve } from "node:path";
import { type Static, Type } from "typebox";
import { readSettingsFile } from "../../settings/settings-file.js";
import { REDACTED, redactSecrets } from "../../shared/redact.js";

/** Default deadline of one tool call. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** Longest deadline a server's `timeoutMs` may set. */
export const MAX_CALL_TIMEOUT_MS = 3_600_000;
/** Most servers one settings file may configure. */
export const MAX_SERVERS = 64;

const StringMap = (description: string) => Type.Record(Type.String(), Type.String(), { description });

export const McpServerConfigSchema = Type.Object(
	{
		type: Type.Optional(Type.Union([Type.Literal("stdio"), Type.Literal("http"), Type.Literal("streamable-http"), Type.Literal("sse")], { description: "How to reach it; read from command or url when absent." })),
		command: Type.Optional(Type.String({ minLength: 1, description: "The program to run (a stdio server)." })),
		args: Type.Optional(Type.Array(Type.String(), { description: "Its arguments." })),
		env: Type.Optional(StringMap("Environment variables added to a small safe set (values may be $VAR references).")),
		cwd: Type.Optional(Type.String({ minLength: 1, description: "Its working directory (relative: to the project, or to skiff's)." })),
		url: Type.Optional(Type.String({ minLength: 1, description: "The endpoint of a Streamable HTTP server (SSE as fallback)." })),
		headers: Type.Optional(StringMap("HTTP headers sent with every request (values may be $VAR references).")),
		allowInsecure: Type.Optional(Type.Boolean({ description: "Allows a plaintext http URL that is not loopback." })),
		enabled: Type.Optional(Type.Boolean({ description: "false keeps it configured but stopped.", default: true })),
		timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CALL_TIMEOUT_MS, description: "Deadline of one tool call (default 60 s)." })),
		startTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CALL_TIMEOUT_MS, description: "Deadline of starting and of listing its tools (default 15 s)." })),
		tools: Type.Optional(Type.Array(Type.String(), { description: "Allow-list of the server's tool names (absent: all)." })),
	},
	{ additionalProperties: false },
);

export const McpServersSchema = Type.Record(Type.String(), McpServerConfigSchema, {
	description: "MCP servers whose tools the agent gets, by name (docs/mcp.md).",
	default: {},
	maxProperties: MAX_SERVERS,
	allowedText:
		"be an object of MCP servers by name, each {command, args, env, cwd} or {url, headers}, with optional enabled, timeoutMs and tools (docs/mcp.md)",
});

export type McpServerConfig = Static<typeof McpServerConfigSchema>;
export type McpServersConfig = Record<string, McpServerConfig>;

/** Where a server is configured: the global settings, or a trusted project's. */
export type McpScope = "global" | "project";

/** A server's configuration, as it is started. */
export interface ServerSpec {
	readonly name: string;
	readonly scope: McpScope;
	/** The project folder of a project's server. */
	readonly project?: string;
	readonly config: McpServerConfig;
	/** Where a relative `cwd` resolves from. */
	readonly baseDir: string;
	/** Changes whenever the configuration does (a reload restarts a server whose fingerprint changed). */
	readonly fingerprint: string;
}

export function serverSpec(name: string, scope: McpScope, config: McpServerConfig, baseDir: string, project?: string): ServerSpec {
	const fingerprint = createHash("sha256").update(JSON.stringify([scope, project ?? "", baseDir, config])).digest("hex").slice(0, 16);
	return { name, scope, ...(project === undefined ? {} : { project }), config, baseDir, fingerprint };
}

export const isEnabled = (config: McpServerConfig): boolean => config.enabled !== false;

/** What a configuration does not make sense as, in a sentence naming the server; it is not started. */
export class McpConfigError extends Error {}

/** How a server is reached, once its references are resolved. */
export type Launch =
	| { kind: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd: string; secrets: string[] }
	| { kind: "http"; url: URL; headers: Record<string, string>; sseOnly: boolean; secrets: string[] };

/** Variables a stdio server gets from skiff's own environment: enough to run, never its credentials. */
const INHERITED_ENV = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SYSTEMROOT"];

/** A whole-value reference (`$NAME`, `${NAME}`) or references inside a value (`Bearer ${NAME}`). */
const WHOLE_REFERENCE = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$/;
const BRACED_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Names whose values are secrets whatever they look like. */
const SECRET_NAME = /key|token|secret|passw|auth|credential|cookie|session|private|signature/i;

/**
 * `value` with its `$VAR` references read from `env`, and the values read (secrets to mask); an unset variable is
 * an error naming where it is.
 */
function resolveReferences(value: string, where: string, env: Record<string, string | undefined>): { value: string; read: string[] } {
	const missing = (name: string) => new McpConfigError(`${where} refers to $${name}, which is not set in skiff's environment`);
	const lookup = (name: string) => {
		const found = env[name];
		if (found === undefined || found === "") throw missing(name);
		return found;
	};
	const whole = WHOLE_REFERENCE.exec(value);
	if (whole) {
		const found = lookup((whole[1] ?? whole[2])!);
		return { value: found, read: [found] };
	}
	const read: string[] = [];
	const resolved = value.replace(BRACED_REFERENCE, (_all, name: string) => {
		const found = lookup(name);
		read.push(found);
		return found;
	});
	return { value: resolved, read };
}

/** Whether a host is this machine (a plaintext URL there stays on the machine). */
function isLoopback(hostname: string): boolean {
	const host = hostname.replace(/^\[|\]$/g, "");
	return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** How the server is reached; throws McpConfigError (naming the server) when the configuration cannot work. */
export function launchOf(spec: ServerSpec, env: Record<string, string | undefined> = process.env): Launch {
	const { config, name } = spec;
	const where = (what: string) => `MCP server ${name}: ${what}`;
	const secrets: string[] = [];
	const resolveMap = (map: Record<string, string> | undefined, field: "env" | "headers") => {
		const out: Record<string, string> = {};
		for (const [key, raw] of Object.entries(map ?? {})) {
			const { value, read } = resolveReferences(raw, where(`${field}.${key}`), env);
			// What came from a reference, and a whole value under a secret-looking name, is masked in what is shown.
			for (const secret of [...read, ...(read.length > 0 || SECRET_NAME.test(key) ? [value] : [])]) if (secret.length >= 4) secrets.push(secret);
			out[key] = value;
		}
		return out;
	};
	const stdio = config.type === "stdio" || (config.type === undefined && config.command !== undefined);
	if (stdio) {
		if (config.command === undefined) throw new McpConfigError(where("a stdio server needs a command"));
		if (config.url !== undefined || config.headers !== undefined) throw new McpConfigError(where("has both a command and a url: give one"));
		const inherited: Record<string, string> = {};
		for (const key of INHERITED_ENV) if (env[key] !== undefined) inherited[key] = env[key]!;
		const cwd = config.cwd === undefined ? spec.baseDir : isAbsolute(config.cwd) ? config.cwd : resolve(spec.baseDir, config.cwd);
		return { kind: "stdio", command: config.command, args: config.args ?? [], env: { ...inherited, ...resolveMap(config.env, "env") }, cwd, secrets };
	}
	if (config.url === undefined) throw new McpConfigError(where("needs a command (stdio) or a url (HTTP)"));
	if (config.command !== undefined || config.args !== undefined || config.env !== undefined || config.cwd !== undefined) {
		throw new McpConfigError(where("an HTTP server takes url and headers, not command, args, env or cwd"));
	}
	let url: URL;
	try {
		url = new URL(config.url);
	} catch {
		throw new McpConfigError(where("url is not a valid URL"));
	}
	if (url.protocol !== "https:" && url.protocol !== "http:") throw new McpConfigError(where("url must be http or https"));
	if (url.username || url.password) throw new McpConfigError(where("url must not hold credentials (put them in headers, as $VAR references)"));
	if (url.protocol === "http:" && !isLoopback(url.hostname) && config.allowInsecure !== true) {
		throw new McpConfigError(where(`refusing plaintext ${url.origin}: use https, or set allowInsecure for a trusted network`));
	}
	return { kind: "http", url, headers: resolveMap(config.headers, "headers"), sseOnly: config.type === "sse", secrets };
}

/** A string with a server's own secrets (its resolved env and header values) and every known secret shape masked. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
	let masked = text;
	// Longest first: a whole header value before the token inside it.
	for (const secret of [...secrets].sort((a, b) => b.length - a.length)) masked = masked.split(secret).join(REDACTED);
	return redactSecrets(masked);
}

/** A map of env or header values as views show it: references as written, secret-looking values masked. */
function shownMap(map: Record<string, string> | undefined): Record<string, string> | undefined {
	if (map === undefined) return undefined;
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries(map)) {
		if (WHOLE_REFERENCE.test(value)) out[key] = value;
		// "Bearer ${TOKEN}" shows as written: what is not a reference is a scheme word at most.
		else if (SECRET_NAME.test(key)) out[key] = /^[A-Za-z ]{0,16}$/.test(value.replace(BRACED_REFERENCE, "")) && value.includes("${") ? value : REDACTED;
		else out[key] = redactSecrets(value);
	}
	return out;
}

/** One server's configuration as every view shows it (mcp_list, settings_inspect, errors): secrets masked. */
export function shownConfig(config: McpServerConfig): McpServerConfig {
	const shown: McpServerConfig = { ...config };
	if (config.env !== undefined) shown.env = shownMap(config.env);
	if (config.headers !== undefined) shown.headers = shownMap(config.headers);
	if (config.args !== undefined) shown.args = config.args.map((arg) => redactSecrets(arg));
	if (config.url !== undefined) shown.url = shownUrl(config.url);
	if (config.command !== undefined) shown.command = redactSecrets(config.command);
	return shown;
}

/** A URL without credentials or a query (where tokens hide), secret shapes masked. */
export function shownUrl(text: string): string {
	try {
		const url = new URL(text);
		if (url.username || url.password) url.username = url.password = "";
		if (url.search) url.search = "?" + REDACTED;
		return redactSecrets(url.toString());
	} catch {
		return redactSecrets(text);
	}
}

/** For the settings catalog: the whole `mcpServers` value with every server's secrets masked. */
export function redactServers(value: unknown): unknown {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return typeof value === "string" ? redactSecrets(value) : value;
	const out: Record<string, unknown> = {};
	for (const [name, config] of Object.entries(value)) {
		out[name] = typeof config === "object" && config !== null && !Array.isArray(config) ? sanitizeForView(config as Record<string, unknown>) : REDACTED;
	}
	return out;
}

/** A server entry that may not fit the schema (a view of a bad file), shown without anything that may be secret. */
function sanitizeForView(config: Record<string, unknown>): McpServerConfig {
	const isMap = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value);
	const stringMap = (value: unknown) => Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, typeof v === "string" ? v : REDACTED]));
	const readable: Record<string, unknown> = { ...config };
	const unreadable: Record<string, unknown> = {};
	for (const key of ["env", "headers"] as const) {
		if (!(key in config)) continue;
		if (isMap(config[key])) readable[key] = stringMap(config[key]);
		else {
			delete readable[key];
			unreadable[key] = REDACTED;
		}
	}
	if ("args" in config) readable.args = Array.isArray(config.args) ? config.args.map((a) => (typeof a === "string" ? a : String(a))) : REDACTED;
	for (const key of ["url", "command"] as const) if (key in config && typeof config[key] !== "string") readable[key] = REDACTED;
	return { ...shownConfig(readable as McpServerConfig), ...unreadable } as McpServerConfig;
}

/**
 * Start-up warnings about the global file's servers: each enabled one whose configuration cannot start (the
 * schema itself is checked by the settings service first). Reads the file only; starts nothing.
 */
export function configWarnings(agentDir: string, env: Record<string, string | undefined> = process.env): string[] {
	let servers: unknown;
	try {
		servers = readSettingsFile(join(agentDir, "settings.json")).data.mcpServers;
	} catch {
		return []; // the settings service reports a file it cannot read
	}
	if (typeof servers !== "object" || servers === null || Array.isArray(servers)) return [];
	const warnings: string[] = [];
	for (const [name, config] of Object.entries(servers)) {
		if (typeof config !== "object" || config === null || !isEnabled(config as McpServerConfig)) continue;
		try {
			launchOf(serverSpec(name, "global", config as McpServerConfig, process.cwd()), env);
		} catch (error) {
			if (error instanceof McpConfigError) warnings.push(`settings: ${error.message}; it will fail to start`);
		}
	}
	return warnings;
}
