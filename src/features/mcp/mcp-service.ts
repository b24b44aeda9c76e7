/**
 * The MCP servers of the service: which are configured for a session's folder (the global settings' and, in a
 * trusted project, the project's, a project's server overriding a global one of the same name), one running
 * copy of each shared by every session that uses it, started when a session that may use it opens, and the
 * agent tools they offer each session (a job's child only those its definition allows). A settings change
 * restarts the servers whose configuration changed and stops those removed or disabled.
 */
import type { DynamicTools, RichFeatureTool } from "../../agent/feature-tool.js";
import type { RuntimeManager } from "../../agent/runtime-manager.js";
import type { SessionFeatures, SessionOrigin } from "../../agent/types.js";
import { valuesOf } from "../../settings/effective-settings.js";
import type { SettingsService } from "../../settings/settings-service.js";
import { readSettingsFile, valueAt } from "../../settings/settings-file.js";
import { projectFolder, projectSettingsPath } from "../../settings/trust.js";
import { CodedError } from "../../shared/errors.js";
import { isEnabled, type McpServersConfig, serverSpec, type ServerSpec, shownConfig } from "./config.js";
import { McpServerRuntime, type ServerHooks, type ServerState } from "./server.js";
import { jobAllows } from "./tool-names.js";

export const SETTING_KEY = "mcpServers";
/** How long the servers read for a folder are used before the files are read again (a hand edit shows then). */
export const SPECS_TTL_MS = 2_000;
/** Folders whose servers are remembered at once. */
const MAX_CACHED_FOLDERS = 256;
/** Why a server of an untrusted project is not started (mcp_list's `lastError` of a skipped one). */
const UNTRUSTED = "not started: the project is not trusted (project_trust trusts it)";

/** One server as mcp_list and mcp_updated show it. */
export interface McpServerView {
	name: string;
	scope: "global" | "project";
	project?: string;
	/** A runtime's state, or skipped: a server of an untrusted project (never started). */
	state: ServerState | "skipped";
	enabled: boolean;
	transport?: string;
	serverInfo?: string;
	pid?: number;
	tools: Array<{ name: string; serverName: string; description: string }>;
	warnings: string[];
	lastError?: string;
	restarts: number;
	config: Record<string, unknown>;
}

export interface McpServiceOptions {
	settings: SettingsService;
	/** Where global servers with a relative (or no) cwd run. */
	cwd: string;
	log(line: string): void;
	/** A server's view changed (mcp_updated). */
	changed(view: McpServerView): void;
	version: string;
	connect?: ServerHooks["connect"];
}

export class McpService {
	/** Running (or known) servers by id: the name for a global one, `<project>\0<name>` for a project's. */
	private readonly servers = new Map<string, McpServerRuntime>();
	private readonly warnedUntrusted = new Set<string>();
	/** The servers untrusted projects' files configure, by folder (mcp_list shows them as skipped), as read. */
	private readonly skipped = new Map<string, Record<string, McpServerView["config"]>>();
	private readonly specCache = new Map<string, { at: number; specs: ServerSpec[] }>();
	private stopped = false;

	constructor(private readonly options: McpServiceOptions) {}

	/** The global servers' specs (outside any project). */
	private globalSpecs(): ServerSpec[] {
		const value = valuesOf(this.options.settings.effective()).get(SETTING_KEY) as McpServersConfig | undefined;
		return Object.entries(value ?? {}).map(([name, config]) => serverSpec(name, "global", config, this.options.cwd));
	}

	/**
	 * The specs for sessions in `cwd`, by name: global, and a trusted project's over them. Read from the files at
	 * most every SPECS_TTL_MS per folder (a prompt asks several times), and at once after a settings change.
	 */
	specsFor(cwd: string): ServerSpec[] {
		const cached = this.specCache.get(cwd);
		if (cached && Date.now() - cached.at < SPECS_TTL_MS) return cached.specs;
		const specs = this.readSpecs(cwd);
		if (this.specCache.size >= MAX_CACHED_FOLDERS) this.specCache.clear();
		this.specCache.set(cwd, { at: Date.now(), specs });
		return specs;
	}

	private readSpecs(cwd: string): ServerSpec[] {
		const effective = this.options.settings.effective(cwd);
		const byName = new Map<string, ServerSpec>();
		const resolved = effective.values.get(SETTING_KEY);
		const globalValue = resolved?.globalValue as McpServersConfig | undefined;
		// The catalog checked both files: a value that does not fit is a problem reported by the settings service.
		const fits = (value: unknown) => value !== undefined && this.options.settings.catalog.problem(resolved!.definition, value) === undefined;
		if (fits(globalValue)) for (const [name, config] of Object.entries(globalValue!)) byName.set(name, serverSpec(name, "global", config, this.options.cwd));
		if (effective.trusted) {
			this.skipped.delete(projectFolder(cwd));
			const projectValue = resolved?.projectValue as McpServersConfig | undefined;
			if (fits(projectValue)) {
				for (const [name, config] of Object.entries(projectValue!)) byName.set(name, serverSpec(name, "project", config, effective.folder, effective.folder));
			}
		} else this.noteUntrusted(cwd, fits);
		return [...byName.values()];
	}

	/**
	 * An untrusted project that configures servers: they do not start. Its servers are kept for mcp_list (their
	 * configuration shown only when it fits the schema, masked like any), and the log is told once.
	 */
	private noteUntrusted(cwd: string, fits: (value: unknown) => boolean): void {
		const folder = projectFolder(cwd);
		let value: unknown;
		try {
			value = valueAt(readSettingsFile(projectSettingsPath(folder)).data, SETTING_KEY);
		} catch {
			return;
		}
		const names = typeof value === "object" && value !== null && !Array.isArray(value) ? Object.keys(value) : [];
		if (names.length === 0) return void this.skipped.delete(folder);
		const shown = fits(value) ? (value as McpServersConfig) : undefined;
		if (this.skipped.size >= MAX_CACHED_FOLDERS && !this.skipped.has(folder)) this.skipped.clear();
		const servers = Object.fromEntries(names.map((name) => [name, shown ? (shownConfig(shown[name]!) as Record<string, unknown>) : {}]));
		const before = this.skipped.get(folder);
		this.skipped.set(folder, servers);
		// Pages showing the list hear of them (they were not there, or changed), as of any server's change.
		if (JSON.stringify(before) !== JSON.stringify(servers)) for (const view of this.skippedViews(folder)) this.options.changed(view);
		if (this.warnedUntrusted.has(folder)) return;
		this.warnedUntrusted.add(folder);
		this.options.log(
			`mcp: ${projectSettingsPath(folder)} configures MCP server${names.length === 1 ? "" : "s"} ${names.slice(0, 8).join(", ")}; not started: the project is not trusted (project_trust trusts it)`,
		);
	}

	private idOf(spec: ServerSpec): string {
		return spec.scope === "global" ? spec.name : `${spec.project}\u0000${spec.name}`;
	}

	/** The running copy for a spec: the one there is when its configuration is the same, else a new one. */
	private runtimeFor(spec: ServerSpec): McpServerRuntime {
		const id = this.idOf(spec);
		const existing = this.servers.get(id);
		if (existing && existing.spec.fingerprint === spec.fingerprint) return existing;
		if (existing) {
			this.options.log(`mcp: server ${spec.name}'s settings changed; it is restarted`);
			void existing.stop();
		}
		const runtime: McpServerRuntime = new McpServerRuntime(spec, {
			version: this.options.version,
			log: (line) => this.options.log(line),
			changed: () => {
				if (this.servers.get(id) === runtime) this.options.changed(this.view(runtime));
			},
			...(this.options.connect ? { connect: this.options.connect } : {}),
		});
		this.servers.set(id, runtime);
		return runtime;
	}

	/** The servers of a session's folder, each started if it is not running. */
	serversFor(cwd: string, start: boolean): McpServerRuntime[] {
		if (this.stopped) return [];
		const runtimes = this.specsFor(cwd).map((spec) => this.runtimeFor(spec));
		if (start) for (const runtime of runtimes) runtime.ensureStarted();
		return runtimes;
	}

	/** What one session gets: the tools of its folder's servers, as they come and go. */
	forSession(origin: SessionOrigin): SessionFeatures {
		const allowList = origin.profile?.coreTools;
		let open = false;
		const current = (): RichFeatureTool[] => {
			if (!open) return [];
			// Asked each time: the session's folder is known only once it is open (a loaded file names its own).
			return this.serversFor(origin.cwd(), true).flatMap((server) =>
				server.tools.filter((tool) => jobAllows(allowList, server.spec.name, tool.name)).map((tool) => tool.tool),
			);
		};
		const dynamicTools: DynamicTools = { current };
		return {
			tools: [],
			dynamicTools,
			activeToolNames: () => current().map((tool) => tool.name),
			contextForPrompt: async () => undefined,
			bind: () => {
				open = true;
				// The session needs its tools from its first prompt on: its servers start now, in the background, once
				// the runtime has the session (and so its folder).
				setImmediate(() => void current());
			},
		};
	}

	/**
	 * Every known server: the global ones (started or not), the trusted projects' that sessions started, and
	 * those of untrusted projects that sessions opened, as `skipped`.
	 */
	list(): McpServerView[] {
		for (const spec of this.globalSpecs()) this.runtimeFor(spec);
		// Read again (at most every SPECS_TTL_MS, at once after a settings change): trusted since, or edited.
		for (const folder of [...this.skipped.keys()]) this.specsFor(folder);
		return [...[...this.servers.values()].map((runtime) => this.view(runtime)), ...[...this.skipped.keys()].flatMap((folder) => this.skippedViews(folder))];
	}

	private skippedViews(project: string): McpServerView[] {
		return Object.entries(this.skipped.get(project) ?? {}).map(([name, config]) => ({
			name,
			scope: "project",
			project,
			state: "skipped",
			enabled: config.enabled !== false,
			tools: [],
			warnings: [],
			lastError: UNTRUSTED,
			restarts: 0,
			config,
		}));
	}

	/** Restarts a server by name (a project's with `project`). */
	async restart(name: string, project?: string): Promise<McpServerView> {
		this.list();
		const id = project === undefined ? name : `${projectFolder(project)}\u0000${name}`;
		const runtime = this.servers.get(id);
		if (!runtime && project !== undefined && this.skipped.get(projectFolder(project))?.[name]) throw new CodedError("invalid_command", `MCP server ${name}: ${UNTRUSTED}`);
		if (!runtime) throw new CodedError("not_found", `No MCP server named ${JSON.stringify(name.slice(0, 64))}${project === undefined ? "" : ` in ${project}`} (mcp_list lists them)`);
		if (!isEnabled(runtime.spec.config)) throw new CodedError("invalid_command", `MCP server ${name} is disabled (set its enabled to true)`);
		await runtime.restart();
		return this.view(runtime);
	}

	/**
	 * Enables or disables a server in the file that configures it, through a settings draft (checked and applied
	 * like settings_apply, so the change reloads the servers). The file's own value is changed, not a view's:
	 * its secrets stay as they are.
	 */
	async setEnabled(name: string, enabled: boolean, runtime: RuntimeManager, project?: string): Promise<McpServerView> {
		this.specCache.clear();
		const folder = project === undefined ? undefined : projectFolder(project);
		const path = folder === undefined ? this.options.settings.globalPath : projectSettingsPath(folder);
		const servers = valueAt(readSettingsFile(path).data, SETTING_KEY);
		const shownName = JSON.stringify(name.slice(0, 64));
		if (typeof servers !== "object" || servers === null || Array.isArray(servers) || !Object.hasOwn(servers, name)) {
			throw new CodedError("not_found", `No MCP server named ${shownName} in ${path} (mcp_list lists them)`);
		}
		const entry = (servers as Record<string, unknown>)[name];
		if (typeof entry !== "object" || entry === null || Array.isArray(entry)) throw new CodedError("invalid_command", `MCP server ${shownName} in ${path} is not an object; fix the file by hand`);
		const draft = this.options.settings.openDraft(folder === undefined ? "global" : "project", folder ?? this.options.cwd);
		try {
			this.options.settings.set(draft.draftId, SETTING_KEY, { ...servers, [name]: { ...entry, enabled } });
			await this.options.settings.apply(draft.draftId, runtime);
		} catch (error) {
			try {
				this.options.settings.cancel(draft.draftId);
			} catch {
				// applied or gone already
			}
			throw error;
		}
		const id = folder === undefined ? name : `${folder}\u0000${name}`;
		this.list();
		const runtimeNow = this.servers.get(id);
		if (!runtimeNow) throw new CodedError("not_found", `No MCP server named ${shownName} after the change`);
		return this.view(runtimeNow);
	}

	/** Waits until the servers of `cwd` are no longer starting (doctor), at most `timeoutMs`. */
	async settle(cwd: string, timeoutMs: number): Promise<McpServerRuntime[]> {
		const runtimes = this.serversFor(cwd, true);
		let timer: NodeJS.Timeout | undefined;
		await Promise.race([Promise.all(runtimes.map((r) => r.settled())), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
		clearTimeout(timer);
		return runtimes;
	}

	/** The settings changed: servers whose configuration changed restart when next needed, removed ones stop. */
	reload(): void {
		this.specCache.clear();
		const wanted = new Map<string, ServerSpec>();
		for (const spec of this.globalSpecs()) wanted.set(this.idOf(spec), spec);
		for (const [id, runtime] of [...this.servers]) {
			const spec = runtime.spec.scope === "global" ? wanted.get(id) : this.specsFor(runtime.spec.project!).find((s) => s.name === runtime.spec.name && s.scope === "project");
			if (spec?.fingerprint === runtime.spec.fingerprint) continue;
			const wasRunning = runtime.state !== "stopped" && runtime.state !== "disabled";
			this.servers.delete(id);
			void runtime.stop();
			if (!spec) {
				this.options.log(`mcp: server ${runtime.spec.name} was removed from the settings; stopped`);
				this.options.changed({ ...this.view(runtime), state: "stopped", tools: [] });
				continue;
			}
			const next = this.runtimeFor(spec);
			this.options.log(`mcp: server ${spec.name}'s settings changed${isEnabled(spec.config) ? "" : " (disabled)"}; ${wasRunning && isEnabled(spec.config) ? "restarting" : "stopped"}`);
			if (wasRunning) next.ensureStarted();
			this.options.changed(this.view(next));
		}
	}

	/** Stops every server (their process groups end); nothing starts afterwards. */
	async stop(): Promise<void> {
		this.stopped = true;
		await Promise.all([...this.servers.values()].map((runtime) => runtime.stop()));
	}

	view(runtime: McpServerRuntime): McpServerView {
		const { spec } = runtime;
		return {
			name: spec.name,
			scope: spec.scope,
			...(spec.project === undefined ? {} : { project: spec.project }),
			state: runtime.state,
			enabled: isEnabled(spec.config),
			...(runtime.transport === undefined ? {} : { transport: runtime.transport }),
			...(runtime.info === undefined ? {} : { serverInfo: runtime.info }),
			...(runtime.pid === undefined || runtime.state !== "ready" ? {} : { pid: runtime.pid }),
			tools: runtime.tools.map(({ name, serverName, description }) => ({ name, serverName, description })),
			warnings: [...runtime.warnings],
			...(runtime.lastError === undefined ? {} : { lastError: runtime.lastError }),
			restarts: runtime.restarts,
			config: shownConfig(spec.config) as Record<string, unknown>,
		};
	}
}
