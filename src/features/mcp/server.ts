/**
 * One configured MCP server over its life: stopped until a session that may use it needs its tools, then
 * starting (the SDK and the connection, loaded and made on first use), ready with its tools, or failed with the
 * reason. A ready server that stops by itself (it crashed) is started again after a backoff, and says so; after
 * MAX_RESTARTS crashes in a row it stays failed until `mcp_restart` or a settings change. Every message it gives
 * names the server and has its secrets masked.
 */
import { defineFeatureTool, type FeatureToolOutput, type RichFeatureTool } from "../../agent/feature-tool.js";
import { isEnabled, type Launch, launchOf, maskSecrets, McpConfigError, type ServerSpec, DEFAULT_CALL_TIMEOUT_MS } from "./config.js";
import type { McpConnection } from "./connect.js";
import { agentToolName } from "./tool-names.js";
import { toToolOutput } from "./tool-result.js";
import { toolParameters } from "./tool-schema.js";

/** Deadline of starting: connecting and the `initialize` handshake. */
export const START_TIMEOUT_MS = 15_000;
/** Deadline of listing the tools. */
export const LIST_TIMEOUT_MS = 15_000;
/** Crashes in a row after which a server is no longer restarted by itself. */
export const MAX_RESTARTS = 5;
/** First wait before a restart (doubled at each crash in a row, at most MAX_BACKOFF_MS). */
export const FIRST_BACKOFF_MS = 1_000;
export const MAX_BACKOFF_MS = 30_000;
/** Warnings kept per server (the newest). */
const MAX_WARNINGS = 20;

export const SERVER_STATES = ["stopped", "starting", "ready", "failed", "restarting", "disabled"] as const;
export type ServerState = (typeof SERVER_STATES)[number];

/** One of its tools as the agent gets it. */
export interface ServerTool {
	/** The agent's name (`mcp__<server>__<tool>`). */
	name: string;
	/** The server's own name of it. */
	serverName: string;
	description: string;
	tool: RichFeatureTool;
}

export interface ServerHooks {
	/** Skiff's version (sent to the server). */
	version: string;
	/** A line for the operator, already naming the server and masked. */
	log(line: string): void;
	/** Its state, tools or warnings changed. */
	changed(): void;
	/** For tests: the first wait of the restart backoff (default FIRST_BACKOFF_MS), so 5 crashes take no 31 s. */
	firstBackoffMs?: number;
	/** For tests and restarts: a connection (default: the SDK's, loaded on first use). */
	connect?: typeof import("./connect.js").connect;
}

export class McpServerRuntime {
	private stateNow: ServerState;
	private toolsNow: ServerTool[] = [];
	private warningsNow: string[] = [];
	private lastErrorNow: string | undefined;
	private connection: McpConnection | undefined;
	private starting: Promise<void> | undefined;
	private crashes = 0;
	private restartTimer: NodeJS.Timeout | undefined;
	/** Bumped by every stop and start: work of an older generation finds itself stale and drops its result. */
	private generation = 0;
	private secrets: string[] = [];
	private transportKind: string | undefined;
	private serverInfo: string | undefined;
	private startedAt: number | undefined;
	/** Aborts the start under way, if any (a stop while it starts ends the half-made connection). */
	private startAbort: AbortController | undefined;

	constructor(
		readonly spec: ServerSpec,
		private readonly hooks: ServerHooks,
	) {
		this.stateNow = isEnabled(spec.config) ? "stopped" : "disabled";
	}

	get state(): ServerState {
		return this.stateNow;
	}
	get tools(): readonly ServerTool[] {
		return this.stateNow === "ready" ? this.toolsNow : [];
	}
	get warnings(): readonly string[] {
		return this.warningsNow;
	}
	get lastError(): string | undefined {
		return this.lastErrorNow;
	}
	get restarts(): number {
		return this.crashes;
	}
	get pid(): number | undefined {
		return this.connection?.pid;
	}
	get transport(): string | undefined {
		return this.transportKind;
	}
	get info(): string | undefined {
		return this.serverInfo;
	}

	/** Starts it unless it runs, is starting, waits for a restart, failed or is disabled. */
	ensureStarted(): void {
		if (this.stateNow === "stopped") void this.start();
	}

	/** Settles once it is no longer starting (for doctor and tests): ready, failed, ... */
	async settled(): Promise<void> {
		while (this.starting) await this.starting;
	}

	/** Stops it and starts it again now (mcp_restart), forgetting crashes. */
	async restart(): Promise<void> {
		await this.stop();
		if (!isEnabled(this.spec.config)) return;
		this.crashes = 0;
		this.stateNow = "stopped";
		await this.start();
	}

	/** Stops it (its process group ends); it stays stopped until needed again. */
	async stop(): Promise<void> {
		this.generation++;
		this.startAbort?.abort();
		this.startAbort = undefined;
		clearTimeout(this.restartTimer);
		this.restartTimer = undefined;
		const connection = this.connection;
		this.connection = undefined;
		this.starting = undefined;
		if (this.stateNow !== "disabled") this.stateNow = "stopped";
		this.toolsNow = [];
		await connection?.close();
		this.hooks.changed();
	}

	private start(): Promise<void> {
		const generation = ++this.generation;
		this.stateNow = "starting";
		this.lastErrorNow = undefined;
		this.warningsNow = [];
		this.hooks.changed();
		const run = this.connectAndList(generation).finally(() => {
			if (this.starting === run) this.starting = undefined;
		});
		this.starting = run;
		return run;
	}

	private async connectAndList(generation: number): Promise<void> {
		const stale = () => generation !== this.generation;
		let launch: Launch;
		try {
			launch = launchOf(this.spec);
		} catch (error) {
			if (!(error instanceof McpConfigError)) throw error;
			return this.fail(error.message.replace(/^MCP server [^:]*: /, ""));
		}
		this.secrets = launch.secrets;
		let connection: McpConnection | undefined;
		// Only the connection in use may report a crash or a new list (not one still connecting, or stopped).
		const inUse = () => !stale() && connection !== undefined && this.connection === connection;
		try {
			const connect = this.hooks.connect ?? (await import("./connect.js")).connect;
			if (stale()) return;
			this.startAbort = new AbortController();
			connection = await connect(launch, {
				signal: this.startAbort.signal,
				timeoutMs: this.spec.config.startTimeoutMs ?? START_TIMEOUT_MS,
				version: this.hooks.version,
				onClosed: (why) => {
					if (inUse()) this.crashed(why);
				},
				onToolsChanged: () => {
					if (inUse()) void this.refreshTools(generation, connection!);
				},
				warn: (line) => {
					if (!stale()) this.warn(line);
				},
			});
		} catch (error) {
			if (stale()) return;
			return this.fail((error as Error).message);
		}
		if (stale()) {
			await connection.close();
			return;
		}
		this.connection = connection;
		this.transportKind = connection.transport;
		this.serverInfo = connection.serverInfo;
		this.startedAt = Date.now();
		await this.refreshTools(generation, connection);
	}

	private async refreshTools(generation: number, connection: McpConnection): Promise<void> {
		let listed;
		try {
			listed = await connection.listTools(this.spec.config.startTimeoutMs ?? LIST_TIMEOUT_MS);
		} catch (error) {
			if (generation !== this.generation) return;
			this.connection = undefined;
			await connection.close();
			return this.fail((error as Error).message);
		}
		if (generation !== this.generation) return;
		const toolWarnings: string[] = [];
		const tools: ServerTool[] = [];
		const taken = new Set<string>();
		const allow = this.spec.config.tools;
		for (const listed1 of listed.tools) {
			if (typeof listed1.name !== "string") continue;
			if (allow !== undefined && !allow.includes(listed1.name)) continue;
			const checked = toolParameters(listed1.inputSchema);
			if ("problem" in checked) {
				toolWarnings.push(`tool ${JSON.stringify(listed1.name)} left out: ${checked.problem}`);
				continue;
			}
			const name = agentToolName(this.spec.name, listed1.name, taken);
			taken.add(name);
			if (name !== `mcp__${this.spec.name}__${listed1.name}`) {
				toolWarnings.push(`tool ${JSON.stringify(listed1.name)} is offered as ${name} (tool names take only letters, digits, _ and -, at most 64 characters)`);
			}
			const description = (listed1.description ?? "").slice(0, 2048);
			tools.push({ name, serverName: listed1.name, description, tool: this.agentTool(name, listed1.name, description, checked.parameters) });
		}
		if (listed.more) toolWarnings.push("lists more tools than Skiff takes from one server; the rest are left out");
		if (allow !== undefined) {
			const missing = allow.filter((name) => !listed.tools.some((t) => t.name === name));
			if (missing.length > 0) toolWarnings.push(`its tools allow-list names tools it does not have: ${missing.join(", ")}`);
		}
		this.toolsNow = tools;
		this.stateNow = "ready";
		for (const warning of toolWarnings) this.warn(warning);
		this.hooks.log(`mcp: server ${this.spec.name} is ready with ${tools.length} tool${tools.length === 1 ? "" : "s"}`);
		this.hooks.changed();
	}

	private agentTool(name: string, serverName: string, description: string, parameters: RichFeatureTool["parameters"]): RichFeatureTool {
		const server = this.spec.name;
		return defineFeatureTool<RichFeatureTool["parameters"], string | FeatureToolOutput>({
			name,
			label: `${server}: ${serverName}`,
			description: `[MCP server ${server}] ${description}`.trim(),
			parameters,
			execute: async (params, signal) => {
				const connection = this.connection;
				if (!connection || this.stateNow !== "ready") {
					throw new Error(`MCP server ${server} is ${this.stateNow}${this.lastErrorNow ? `: ${this.lastErrorNow}` : ""}`);
				}
				const timeoutMs = this.spec.config.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
				let result;
				try {
					result = await connection.callTool(serverName, params as Record<string, unknown>, { timeoutMs, signal });
				} catch (error) {
					throw new Error(this.mask(`MCP server ${server}: ${serverName} ${(error as Error).message}`));
				}
				try {
					return toToolOutput(result, { mcpServer: server, mcpTool: serverName });
				} catch (error) {
					throw new Error(this.mask(`MCP server ${server}: ${serverName} failed: ${(error as Error).message}`));
				}
			},
		});
	}

	private crashed(why: string): void {
		this.connection = undefined;
		this.toolsNow = [];
		this.crashes++;
		const upFor = this.startedAt === undefined ? 0 : Date.now() - this.startedAt;
		// A server that ran a good while before it stopped starts its count again.
		if (upFor > 5 * 60_000) this.crashes = 1;
		if (this.crashes > MAX_RESTARTS) {
			return this.fail(`stopped (${why}) after ${MAX_RESTARTS} restarts in a row; not restarted again (mcp_restart starts it)`);
		}
		const wait = Math.min(MAX_BACKOFF_MS, (this.hooks.firstBackoffMs ?? FIRST_BACKOFF_MS) * 2 ** (this.crashes - 1));
		this.lastErrorNow = this.mask(`stopped: ${why}`);
		this.stateNow = "restarting";
		this.hooks.log(`mcp: server ${this.spec.name} stopped (${this.lastErrorNow.replace(/^stopped: /, "")}); restarting in ${wait} ms (restart ${this.crashes} of at most ${MAX_RESTARTS})`);
		this.hooks.changed();
		const generation = ++this.generation;
		this.restartTimer = setTimeout(() => {
			if (generation !== this.generation) return;
			this.restartTimer = undefined;
			void this.start();
		}, wait);
		this.restartTimer.unref();
	}

	private fail(message: string): void {
		this.stateNow = "failed";
		this.toolsNow = [];
		this.lastErrorNow = this.mask(message);
		this.hooks.log(`mcp: server ${this.spec.name} failed: ${this.lastErrorNow}`);
		this.hooks.changed();
	}

	private warn(line: string): void {
		const masked = this.mask(line);
		this.warningsNow = [...this.warningsNow, masked].slice(-MAX_WARNINGS);
		this.hooks.log(`mcp: server ${this.spec.name} ${masked}`);
		this.hooks.changed();
	}

	private mask(text: string): string {
		return maskSecrets(text, this.secrets);
	}
}
