/**
 * The memory subsystem as the rest of the service sees it: which backend each session uses (exactly one),
 * the tools that backend offers, and the hidden context injected at turn start. Top-level sessions share a
 * live configuration: their trusted project's when its settings file sets memory keys, else the live
 * defaults (from settings.json); both change at run time (memory_set_backend, settings_apply). A child
 * session starts from its parent's live configuration at the moment it is created and keeps its own copy.
 */
import { isDeepStrictEqual } from "node:util";
import type { FeatureTool } from "../../agent/feature-tool.js";
import type { FeatureSession } from "../../agent/types.js";
import { boundText } from "../../agent/feature-tool.js";
import { LocalMemoryStore, personaStorePath, projectStorePath } from "./local-store.js";
import { createLocalMemoryTool } from "./local-tool.js";
import { RemoteMemoryClient, RemoteMemoryError } from "./remote-client.js";
import { remoteScope } from "./remote-scope.js";
import { createRemoteMemoryTools } from "./remote-tools.js";
import { REDACTED, redactSecrets } from "../../shared/redact.js";
import { type Backend, type MemorySettings, redactedSettings } from "./settings.js";

/** A session's memory configuration as clients see it (see MemoryViewSchema in commands.ts). */
export type MemoryView = Omit<MemorySettings, "remoteApiToken"> & { remoteApiToken?: typeof REDACTED; activeTools: string[]; shared: boolean };

/** Turn-start injection: its own short deadline (it must never hold up a turn), and the query bound. */
export const INJECTION_DEADLINE_MS = 5_000;
/** Hindsight refuses recall queries over 500 tokens; about 1,500 characters stays under that. */
export const INJECTION_QUERY_CHARS = 1_500;
export const INJECTION_CUSTOM_TYPE = "memory-context";
/** The memory status request's own deadline (it is meant to be cheap). */
export const STATUS_TIMEOUT_MS = 10_000;

/** Where a session's local memory lives: its project's store, or its persona's. */
export type LocalNamespace = "project" | "persona";

/** What `memory_status` reports: the backend, whether it works, and where memory lives. */
export interface MemoryStatus {
	backend: Backend;
	healthy: boolean;
	/** One sentence on what was found (secrets redacted). */
	detail: string;
	local: { namespace: LocalNamespace; path: string; entries: number; unreadable: number; error?: string };
	remote?: {
		url: string;
		bank: string;
		scoping: MemorySettings["remoteScoping"];
		tags?: string[];
		remoteApiToken?: typeof REDACTED;
		reachable: boolean;
		bankExists?: boolean;
	};
}

/** A memory configuration: shared (the live defaults, or a project's) or a session's own (children). */
export interface MemoryBinding {
	settings: MemorySettings;
	/**
	 * What the settings files said when a shared configuration was last read: a reload changes only the keys the
	 * files changed, so a run-time switch of another key stays.
	 */
	fromFiles?: MemorySettings;
}

/** What a session gets from memory: tools to register, which of them are active now, and turn-start context. */
export interface SessionMemory {
	/**
	 * The session's own configuration (a child's copy); undefined when it shares its project's or the defaults.
	 * A session loaded again takes the one it had before (MemoryService.attach).
	 */
	own: MemoryBinding | undefined;
	/** Its working directory (known once the session is open), which decides the shared configuration it uses. */
	readonly cwd: () => string;
	readonly tools: FeatureTool[];
	/** The session's local store (its project's, or its persona's) and which it is. */
	readonly namespace: LocalNamespace;
	localStore(): LocalMemoryStore;
	activeToolNames(): string[];
	contextForPrompt(prompt: string, signal: AbortSignal | undefined): Promise<{ customType: string; content: string } | undefined>;
	/** Once the session is open: when it closes, the service keeps only what loading it again needs. */
	bind(session: FeatureSession): void;
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

export interface MemoryServiceOptions {
	ca?: string | Buffer;
	log?: (line: string) => void;
	/**
	 * The memory settings of the trusted project whose working directory is `cwd`, when its settings file sets
	 * memory keys (undefined: its sessions share the defaults).
	 */
	projectSettings?: (cwd: string) => MemorySettings | undefined;
}

export class MemoryService {
	/** The live defaults, shared by every top-level session outside a project with its own memory settings. */
	readonly defaults: MemoryBinding;
	/** Shared configurations of projects that set memory keys, by working directory (null: it uses the defaults). */
	private readonly projects = new Map<string, MemoryBinding | null>();
	/**
	 * Each attached session: its own configuration (children's), its working directory, and its local store.
	 * A closed session keeps an entry (so it is the same when loaded again) made of plain values: `memory`, the
	 * loaded session's features, whose closures hold the whole agent session, is dropped on close.
	 */
	private readonly sessions = new Map<
		string,
		{ own: MemoryBinding | undefined; cwd: () => string; namespace: LocalNamespace; store: () => LocalMemoryStore; memory?: SessionMemory }
	>();

	constructor(
		private readonly agentDir: string,
		settings: MemorySettings,
		private readonly options: MemoryServiceOptions = {},
	) {
		this.defaults = { settings, fromFiles: settings };
	}

	/** Memory for a new session. Call `attach` with its id once it exists. */
	forSession(options: SessionMemoryOptions): SessionMemory {
		const parentId = options.parentSessionId;
		const parent = parentId !== undefined && this.sessions.has(parentId) ? this.binding(parentId) : undefined;
		// The copy remembers what the files said, so an applied settings change reaches it as it reaches the
		// shared configurations (reload), while its own run-time switches stay.
		const own = parent ? { settings: { ...parent.settings }, fromFiles: parent.fromFiles } : undefined;
		const live = () => (memory.own ?? this.shared(options.cwd())).settings;
		const store = () =>
			new LocalMemoryStore(options.personaRoot ? personaStorePath(options.personaRoot) : projectStorePath(this.agentDir, options.cwd()));
		const local = createLocalMemoryTool(() => {
			if (live().backend !== "local") throw new Error(`the memory backend is now ${live().backend}; this tool is not available`);
			return store();
		}, options.sessionId);
		const memory: SessionMemory = {
			own,
			cwd: options.cwd,
			namespace: options.personaRoot ? "persona" : "project",
			localStore: store,
			tools: [local, ...createRemoteMemoryTools(live, options.cwd, { ca: this.options.ca })],
			activeToolNames: () => TOOLS_BY_BACKEND[live().backend],
			contextForPrompt: async (prompt, signal) => {
				const content = await this.injection(live(), options.cwd(), prompt, signal);
				return content === undefined ? undefined : { customType: INJECTION_CUSTOM_TYPE, content };
			},
			bind: (session) => {
				session.onClose(() => this.release(session.sessionId, memory));
			},
		};
		return memory;
	}

	/**
	 * Remembers which binding a session uses (for its commands and its future children). A session loaded
	 * again (after it was unloaded, which opens it without its parent) keeps the configuration it had, not a
	 * fresh copy of its parent's nor the shared one.
	 */
	attach(sessionId: string, memory: SessionMemory): void {
		const earlier = this.sessions.get(sessionId)?.own;
		if (earlier) memory.own = earlier;
		this.sessions.set(sessionId, { own: memory.own, cwd: memory.cwd, namespace: memory.namespace, store: () => memory.localStore(), memory });
	}

	/**
	 * The session closed (unloaded, or replaced by a reload that attached its successor first): its entry keeps
	 * its configuration, its last working directory and its store's path, and no longer refers to the session.
	 */
	private release(sessionId: string, memory: SessionMemory): void {
		const entry = this.sessions.get(sessionId);
		if (entry?.memory !== memory) return;
		const cwd = entry.cwd();
		const path = entry.store().path;
		this.sessions.set(sessionId, { own: entry.own, cwd: () => cwd, namespace: entry.namespace, store: () => new LocalMemoryStore(path) });
	}

	/** How many sessions hold a live (loaded) entry, for tests of the bound. */
	get liveSessionCount(): number {
		let live = 0;
		for (const entry of this.sessions.values()) if (entry.memory) live++;
		return live;
	}

	/** The local store of a session (its persona's when it has one), else of the project at `cwd`. */
	localStore(sessionId: string, cwd: string): { namespace: LocalNamespace; store: LocalMemoryStore } {
		const known = this.sessions.get(sessionId);
		if (known) return { namespace: known.namespace, store: known.store() };
		return { namespace: "project", store: new LocalMemoryStore(projectStorePath(this.agentDir, cwd)) };
	}

	/**
	 * How a session's memory is doing: its local store (read), and for the remote backend one cheap read-only
	 * request (the bank's profile). Never throws; secrets are redacted.
	 */
	async status(sessionId: string, cwd: string, signal?: AbortSignal): Promise<MemoryStatus> {
		const settings = this.binding(sessionId).settings;
		const { namespace, store } = this.localStore(sessionId, cwd);
		const local: MemoryStatus["local"] = { namespace, path: store.path, entries: 0, unreadable: 0 };
		try {
			const file = await store.read();
			local.entries = file.entries.length;
			local.unreadable = file.unreadable.length;
		} catch (error) {
			local.error = (error as Error).message;
		}
		const backend = settings.backend;
		if (backend === "off") return { backend, healthy: true, detail: "Memory is off: the agent has no memory tools.", local };
		if (backend === "local") {
			if (local.error) return { backend, healthy: false, detail: `The local memory store ${store.path} ${local.error.replace(/^memory store /, "")}.`, local };
			const kept = local.unreadable ? ` (${local.unreadable} unreadable line${local.unreadable === 1 ? "" : "s"} kept as they are)` : "";
			return { backend, healthy: true, detail: `Local memory holds ${local.entries} entr${local.entries === 1 ? "y" : "ies"}${kept}.`, local };
		}
		const scope = remoteScope(settings, cwd);
		const remote: NonNullable<MemoryStatus["remote"]> = {
			url: settings.remoteApiUrl ?? "",
			bank: scope.bank,
			scoping: settings.remoteScoping,
			...(scope.tags ? { tags: scope.tags } : {}),
			...(settings.remoteApiToken ? { remoteApiToken: REDACTED } : {}),
			reachable: false,
		};
		let found;
		try {
			const timeout = Math.min(settings.remoteRequestTimeoutMs, STATUS_TIMEOUT_MS);
			found = await new RemoteMemoryClient(settings, { ca: this.options.ca }).bankStatus(scope.bank, timeout, signal);
		} catch (error) {
			const reason = error instanceof RemoteMemoryError ? error.message : `remote memory status failed: ${(error as Error).message}`;
			return { backend, healthy: false, detail: `${redactSecrets(reason)}.`, local, remote };
		}
		remote.reachable = true;
		if (found.problem) return { backend, healthy: false, detail: `${redactSecrets(found.problem)}.`, local, remote };
		remote.bankExists = found.bankExists;
		const bank = found.bankExists ? `bank ${scope.bank} exists` : `bank ${scope.bank} does not exist yet (it is created on the first write)`;
		return { backend, healthy: true, detail: `The memory server at ${remote.url} answered: ${bank}.`, local, remote };
	}

	/** The configuration a session uses now: its own, or the one it shares. */
	binding(sessionId: string): MemoryBinding {
		const session = this.sessions.get(sessionId);
		if (!session) return this.defaults;
		return session.own ?? this.shared(session.cwd());
	}

	/** The configuration top-level sessions in `cwd` share: their project's, or the live defaults. */
	private shared(cwd: string): MemoryBinding {
		let binding = this.projects.get(cwd);
		if (binding === undefined) {
			const settings = this.options.projectSettings?.(cwd);
			binding = settings ? { settings, fromFiles: settings } : null;
			this.projects.set(cwd, binding);
		}
		return binding ?? this.defaults;
	}

	/**
	 * The settings files changed (settings_apply, project_trust): every configuration, shared or a session's own
	 * (children, forks, clones), takes the files' new values of the keys that changed, so what was applied is in
	 * force in every session; a run-time switch of another key stays.
	 */
	reload(global: MemorySettings): void {
		rebase(this.defaults, global);
		const files = new Map<string, MemorySettings | undefined>();
		const filesOf = (cwd: string) => {
			if (!files.has(cwd)) files.set(cwd, this.options.projectSettings?.(cwd));
			return files.get(cwd);
		};
		for (const [cwd, binding] of this.projects) {
			const settings = filesOf(cwd);
			if (!settings) this.projects.delete(cwd);
			else if (binding) rebase(binding, settings);
			else this.projects.set(cwd, { settings, fromFiles: settings });
		}
		for (const session of this.sessions.values()) if (session.own) rebase(session.own, filesOf(session.cwd()) ?? global);
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
		const shared = binding === this.defaults || [...this.projects.values()].includes(binding);
		return { ...visible, activeTools: TOOLS_BY_BACKEND[binding.settings.backend], shared };
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

/** Takes the files' new values of the keys they changed since `binding` last read them. */
function rebase(binding: MemoryBinding, files: MemorySettings): void {
	const previous = (binding.fromFiles ?? binding.settings) as Record<string, unknown>;
	const next = { ...binding.settings } as Record<string, unknown>;
	const current = files as Record<string, unknown>;
	for (const key of new Set([...Object.keys(previous), ...Object.keys(current)])) {
		if (isDeepStrictEqual(previous[key], current[key])) continue;
		if (current[key] === undefined) delete next[key];
		else next[key] = current[key];
	}
	binding.settings = next as MemorySettings;
	binding.fromFiles = files;
}
