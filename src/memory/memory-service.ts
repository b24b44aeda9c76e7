/**
 * The memory subsystem as the rest of the service sees it: which backend each session uses (exactly one),
 * the tools that backend offers, and the hidden context injected at turn start. Top-level sessions share
 * the live defaults (from settings.json, changeable at run time); a child session starts from its parent's
 * live configuration at the moment it is created.
 */
import type { FeatureTool } from "../features/feature-tool.js";
import { boundText } from "../features/feature-tool.js";
import { LocalMemoryStore, personaStorePath, projectStorePath } from "./local-store.js";
import { createLocalMemoryTool } from "./local-tool.js";
import { RemoteMemoryClient } from "./remote-client.js";
import { remoteScope } from "./remote-scope.js";
import { createRemoteMemoryTools } from "./remote-tools.js";
import { REDACTED } from "../shared/redact.js";
import { type Backend, type MemorySettings, redactedSettings } from "./settings.js";

/** A session's memory configuration as clients see it (see MemoryViewSchema in commands.ts). */
export type MemoryView = Omit<MemorySettings, "remoteApiToken"> & { remoteApiToken?: typeof REDACTED; activeTools: string[]; shared: boolean };

/** Turn-start injection: its own short deadline (it must never hold up a turn), and the query bound. */
export const INJECTION_DEADLINE_MS = 5_000;
/** Hindsight refuses recall queries over 500 tokens; about 1,500 characters stays under that. */
export const INJECTION_QUERY_CHARS = 1_500;
export const INJECTION_CUSTOM_TYPE = "memory-context";

/** A session's memory configuration: shared (the live defaults) or its own (children). */
export interface MemoryBinding {
	settings: MemorySettings;
}

/** What a session gets from memory: tools to register, which of them are active now, and turn-start context. */
export interface SessionMemory {
	readonly binding: MemoryBinding;
	readonly tools: FeatureTool[];
	activeToolNames(): string[];
	contextForPrompt(prompt: string, signal: AbortSignal | undefined): Promise<{ customType: string; content: string } | undefined>;
}

export interface SessionMemoryOptions {
	/** The session's working directory (read when a tool runs: it is known once the session is open). */
	cwd: () => string;
	/** The parent session's id: the child starts from the parent's live configuration. */
	parentSessionId?: string;
	/** A persona's root directory: local memory lives at `<persona-root>/memory/entries.jsonl`. */
	personaRoot?: string;
	/** The id of the session, once known (recorded as each learned entry's provenance). */
	sessionId: () => string;
}

const TOOLS_BY_BACKEND: Record<Backend, string[]> = { local: ["memory"], remote: ["recall", "retain", "reflect"], off: [] };

export class MemoryService {
	/** The live defaults, shared by every top-level session. */
	readonly defaults: MemoryBinding;
	private readonly bindings = new Map<string, MemoryBinding>();

	constructor(
		private readonly agentDir: string,
		settings: MemorySettings,
		private readonly options: { ca?: string | Buffer; log?: (line: string) => void } = {},
	) {
		this.defaults = { settings };
	}

	/** Memory for a new session. Call `attach` with its id once it exists. */
	forSession(options: SessionMemoryOptions): SessionMemory {
		const parent = options.parentSessionId ? this.bindings.get(options.parentSessionId) : undefined;
		const binding: MemoryBinding = parent ? { settings: { ...parent.settings } } : this.defaults;
		const live = () => binding.settings;
		const store = () =>
			new LocalMemoryStore(options.personaRoot ? personaStorePath(options.personaRoot) : projectStorePath(this.agentDir, options.cwd()));
		const local = createLocalMemoryTool(() => {
			if (live().backend !== "local") throw new Error(`the memory backend is now ${live().backend}; this tool is not available`);
			return store();
		}, options.sessionId);
		return {
			binding,
			tools: [local, ...createRemoteMemoryTools(live, options.cwd, { ca: this.options.ca })],
			activeToolNames: () => TOOLS_BY_BACKEND[live().backend],
			contextForPrompt: async (prompt, signal) => {
				const content = await this.injection(live(), options.cwd(), prompt, signal);
				return content === undefined ? undefined : { customType: INJECTION_CUSTOM_TYPE, content };
			},
		};
	}

	/**
	 * Remembers which binding a session uses (for its commands and its future children). A session loaded
	 * again (after it was unloaded) keeps the configuration it had, not a fresh copy of its parent's.
	 */
	attach(sessionId: string, memory: SessionMemory): void {
		const earlier = this.bindings.get(sessionId);
		if (earlier && earlier !== memory.binding && memory.binding !== this.defaults) memory.binding.settings = earlier.settings;
		this.bindings.set(sessionId, memory.binding);
	}

	binding(sessionId: string): MemoryBinding {
		return this.bindings.get(sessionId) ?? this.defaults;
	}

	/** Switches a binding's backend; it applies from the next turn. Remote needs a configured URL. */
	setBackend(binding: MemoryBinding, backend: Backend): MemorySettings {
		if (backend === "remote" && !binding.settings.remoteApiUrl) {
			throw new Error("memory.remoteApiUrl is not configured in settings.json: the remote backend cannot be used");
		}
		binding.settings = { ...binding.settings, backend };
		return binding.settings;
	}

	/** What settings views show: never the token. */
	view(binding: MemoryBinding): MemoryView {
		// Every secret key of the schema (not only the token) is masked by redactedSettings.
		const visible = redactedSettings(binding.settings) as Omit<MemoryView, "activeTools" | "shared">;
		return { ...visible, activeTools: TOOLS_BY_BACKEND[binding.settings.backend], shared: binding === this.defaults };
	}

	/**
	 * Bounded recall for the latest ask, as hidden context. Advisory and fail-open: any failure (or no
	 * result) means no injection, and it gives up after a short deadline or when the run is aborted.
	 */
	private async injection(settings: MemorySettings, cwd: string, prompt: string, signal: AbortSignal | undefined): Promise<string | undefined> {
		if (settings.backend !== "remote" || !settings.remoteInjection) return undefined;
		const query = [...prompt.trim()].slice(0, INJECTION_QUERY_CHARS).join("");
		if (!query) return undefined;
		const deadline = AbortSignal.timeout(INJECTION_DEADLINE_MS);
		const bounded = { ...settings, remoteRecallTimeoutMs: Math.min(settings.remoteRecallTimeoutMs, INJECTION_DEADLINE_MS) };
		try {
			const body = await new RemoteMemoryClient(bounded, { ca: this.options.ca }).recall(
				query,
				remoteScope(settings, cwd),
				signal ? AbortSignal.any([signal, deadline]) : deadline,
			);
			if (body === "No relevant memories found.") return undefined;
			return boundText(`Related memories for the latest request:\n${body}`);
		} catch (error) {
			this.options.log?.(`memory injection skipped: ${(error as Error).message}`);
			return undefined;
		}
	}
}
