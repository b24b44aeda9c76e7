/** Command-line flags of `skiff`: parsed strictly, with errors that name the flag. */
import { parseArgs } from "node:util";
import type { StartupSession } from "../agent/runtime-manager.js";
import { SESSION_ID_PATTERN, THINKING_LEVELS, type ThinkingLevel } from "../agent/types.js";

/** How skiff talks to its clients: a listener (HTTP and WebSocket), or one client over standard input and output. */
export type CliMode = "listen" | "rpc";

/** Values of `--mode`: pi's RPC mode only (pi's `text` and `json` modes are interactive or one-shot). */
const MODES = ["rpc"] as const;

export interface CliOptions {
	help: boolean;
	version: boolean;
	/** `rpc` with `--mode rpc`; otherwise `listen` (which then needs --listen). */
	mode: CliMode;
	listen?: string;
	listenTokenFile?: string;
	listenAllowInsecureRemote: boolean;
	listenAdvertisedOrigin?: string;
	model?: string;
	thinking?: ThinkingLevel;
	cwd?: string;
	session: StartupSession;
	maxSessions?: number;
}

/** Thrown for a usage mistake; the CLI prints the message and exits with status 2. */
export class UsageError extends Error {}

export function parseCliArgs(argv: string[]): CliOptions {
	let parsed;
	try {
		parsed = parseArgs({
			args: argv,
			strict: true,
			allowPositionals: false,
			options: {
				help: { type: "boolean", short: "h" },
				version: { type: "boolean", short: "v" },
				mode: { type: "string" },
				listen: { type: "string" },
				"listen-token-file": { type: "string" },
				"listen-allow-insecure-remote": { type: "boolean" },
				"listen-advertised-origin": { type: "string" },
				model: { type: "string" },
				provider: { type: "string" },
				thinking: { type: "string" },
				cwd: { type: "string", short: "C" },
				continue: { type: "boolean", short: "c" },
				resume: { type: "string", short: "r" },
				session: { type: "string" },
				"session-id": { type: "string" },
				"no-session": { type: "boolean" },
				"max-sessions": { type: "string" },
			},
		});
	} catch (error) {
		throw new UsageError(error instanceof Error ? error.message.replace(/\. To specify a positional.*$/s, "") : String(error));
	}
	const v = parsed.values;

	const choices = [
		v.continue ? "--continue" : undefined,
		v.resume !== undefined ? "--resume" : undefined,
		v.session !== undefined ? "--session" : undefined,
		v["session-id"] !== undefined ? "--session-id" : undefined,
		v["no-session"] ? "--no-session" : undefined,
	].filter((c): c is string => c !== undefined);
	if (choices.length > 1) throw new UsageError(`${choices.join(" and ")} cannot be combined: choose one session option`);

	let session: StartupSession = { kind: "new" };
	if (v.continue) session = { kind: "continue" };
	else if (v.resume !== undefined) session = { kind: "open", reference: nonEmpty("--resume", v.resume) };
	else if (v.session !== undefined) session = { kind: "open", reference: nonEmpty("--session", v.session) };
	else if (v["no-session"]) session = { kind: "memory" };
	else if (v["session-id"] !== undefined) {
		const id = v["session-id"];
		if (!SESSION_ID_PATTERN.test(id)) {
			throw new UsageError(`--session-id "${id}" is not a valid id: use 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit`);
		}
		session = { kind: "id", id };
	}

	let thinking: ThinkingLevel | undefined;
	if (v.thinking !== undefined) {
		if (!(THINKING_LEVELS as readonly string[]).includes(v.thinking)) {
			throw new UsageError(`--thinking "${v.thinking}" is not a level: use one of ${THINKING_LEVELS.join(", ")}`);
		}
		thinking = v.thinking as ThinkingLevel;
	}

	let maxSessions: number | undefined;
	if (v["max-sessions"] !== undefined) {
		maxSessions = Number(v["max-sessions"]);
		if (!Number.isInteger(maxSessions) || maxSessions < 1 || maxSessions > 1000) {
			throw new UsageError(`--max-sessions "${v["max-sessions"]}" must be an integer from 1 to 1000`);
		}
	}

	let mode: CliMode = "listen";
	if (v.mode !== undefined) {
		if (!(MODES as readonly string[]).includes(v.mode)) {
			throw new UsageError(`--mode "${v.mode}" is not supported: the only mode is rpc (the protocol over standard input and output)`);
		}
		mode = "rpc";
		if (v.listen !== undefined) throw new UsageError("--mode rpc and --listen cannot be combined: rpc mode talks over standard input and output");
	}

	// pi's RpcClient passes `--provider <p> --model <id>`; skiff's own form is `--model <p>/<id>`.
	let model = v.model;
	if (v.provider !== undefined) {
		if (!/^[^/\s]+$/.test(v.provider)) throw new UsageError(`--provider "${v.provider}" must be a provider name, for example anthropic`);
		if (model === undefined) throw new UsageError("--provider needs --model <id>, for example --provider anthropic --model claude-sonnet-4-5");
		if (!/^\S+$/.test(model)) throw new UsageError(`--model "${model}" must be a model id`);
		if (!model.startsWith(`${v.provider}/`)) model = `${v.provider}/${model}`;
	} else if (model !== undefined && !/^[^/\s]+\/\S+$/.test(model)) {
		throw new UsageError(`--model "${model}" must be provider/id (for example anthropic/claude-sonnet-4-5), or an id with --provider`);
	}

	const listenFlags = ["listen-token-file", "listen-allow-insecure-remote", "listen-advertised-origin"] as const;
	if (v.listen === undefined) {
		const stray = listenFlags.find((f) => v[f] !== undefined);
		if (stray) throw new UsageError(`--${stray} needs --listen <host:port>`);
	}

	return {
		help: v.help ?? false,
		version: v.version ?? false,
		mode,
		listen: v.listen,
		listenTokenFile: v["listen-token-file"],
		listenAllowInsecureRemote: v["listen-allow-insecure-remote"] ?? false,
		listenAdvertisedOrigin: v["listen-advertised-origin"],
		model,
		thinking,
		cwd: v.cwd,
		session,
		maxSessions,
	};
}

function nonEmpty(flag: string, value: string): string {
	if (!value.trim()) throw new UsageError(`${flag} needs a session id, id prefix or path`);
	return value;
}
