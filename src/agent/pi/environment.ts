/**
 * Process-wide pi services shared by every session: credentials, the model registry and the tool set.
 * One environment per process; each session gets its own settings, resources and recorder.
 */
import { accessSync, constants, mkdirSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { Model } from "@mariozechner/pi-ai";
import { AuthStorage, ModelRegistry } from "@mariozechner/pi-coding-agent";
import type { ModelInfo } from "../types.js";

/** Tools every session gets: they need nothing beyond Node and a shell. */
const CORE_TOOLS = ["read", "bash", "edit", "write"];
/** Tools pi backs with external binaries; offered only when the binary is installed (pi would download it). */
const BINARY_TOOLS: Array<{ tool: string; binaries: string[] }> = [
	{ tool: "grep", binaries: ["rg"] },
	{ tool: "find", binaries: ["fd", "fdfind"] },
];

export interface PiEnvironment {
	readonly agentDir: string;
	readonly sessionsDir: string;
	readonly authStorage: AuthStorage;
	readonly modelRegistry: ModelRegistry;
	readonly tools: string[];
	/** A problem with models.json, if pi reported one. */
	readonly modelsError: string | undefined;
	/** Looks up `provider/id` among all known models (configured or not). */
	findModel(reference: string): Model<any> | undefined;
	/** The model named by --model; without it pi restores a session's own model or picks a default. */
	readonly requestedModel: Model<any> | undefined;
	/** Tells the operator about something worth knowing (a repaired session file); never secrets. */
	warn(line: string): void;
}

export interface PiEnvironmentOptions {
	agentDir: string;
	/** `provider/id` from --model; must exist when given. */
	model?: string;
	/** Injected for tests; defaults to a PATH lookup. */
	hasBinary?: (name: string) => boolean;
	/** Where warnings go; defaults to standard error. */
	warn?: (line: string) => void;
}

/** Builds the shared services. Throws when `--model` names a model pi does not know. */
export function createPiEnvironment(options: PiEnvironmentOptions): PiEnvironment {
	const { agentDir } = options;
	// pi resolves its tool-binary folder and global session listing from this variable, and PI_OFFLINE keeps
	// it from phoning home. Both are process-global by pi's design, so they are set once, here.
	process.env.PI_CODING_AGENT_DIR = agentDir;
	process.env.PI_OFFLINE ??= "1";
	const sessionsDir = join(agentDir, "sessions");
	mkdirSync(sessionsDir, { recursive: true });

	const authStorage = AuthStorage.create(join(agentDir, "auth.json"));
	const modelRegistry = ModelRegistry.create(authStorage, join(agentDir, "models.json"));
	const hasBinary = options.hasBinary ?? binaryOnPath;
	const tools = [...CORE_TOOLS, ...BINARY_TOOLS.filter((t) => t.binaries.some(hasBinary)).map((t) => t.tool)];

	const findModel = (reference: string) => {
		const slash = reference.indexOf("/");
		if (slash <= 0) return undefined;
		return modelRegistry.find(reference.slice(0, slash), reference.slice(slash + 1));
	};
	let requested: Model<any> | undefined;
	if (options.model !== undefined) {
		requested = findModel(options.model);
		if (!requested) {
			throw new Error(
				`Unknown model "${options.model}": expected provider/id of a built-in model or one defined in ${join(agentDir, "models.json")}`,
			);
		}
	}
	return {
		agentDir,
		sessionsDir,
		authStorage,
		modelRegistry,
		tools,
		modelsError: modelRegistry.getError(),
		findModel,
		requestedModel: requested,
		warn: options.warn ?? ((line) => process.stderr.write(`warning: ${line}\n`)),
	};
}

/** The wire form of a model: everything but request headers, which may carry credentials. */
export function toModelInfo(model: Model<any>): ModelInfo {
	const { headers: _headers, ...rest } = model as Model<any> & { headers?: unknown };
	return rest as unknown as ModelInfo;
}

/** What a user must do when no model can run. */
export function noModelMessage(agentDir: string): string {
	return (
		"No model is configured. Set a provider API key in the environment (for example ANTHROPIC_API_KEY or " +
		`OPENAI_API_KEY), add credentials to ${join(agentDir, "auth.json")}, or define an OpenAI-compatible ` +
		`provider (Ollama, llama.cpp, vLLM...) in ${join(agentDir, "models.json")}; then restart skiff or choose ` +
		"a model with --model provider/id or the set_model command."
	);
}

/** Whether an executable `name` is in a folder of PATH: looked up here rather than by a shell (a process per name
 * was a tenth of the service's start-up). */
function binaryOnPath(name: string): boolean {
	for (const folder of (process.env.PATH ?? "").split(delimiter)) {
		if (!folder) continue;
		try {
			const path = join(folder, name);
			accessSync(path, constants.X_OK);
			if (statSync(path).isFile()) return true;
		} catch {
			// not in this folder
		}
	}
	return false;
}
