/**
 * One chat session on pi's SDK: an AgentSession with its own settings, resources and recorder, wrapped in
 * the runtime's AgentHandle so nothing above src/agent/ sees pi.
 */
import {
	type AgentSession,
	createAgentSession,
	DefaultResourceLoader,
	defineTool,
	type ExtensionFactory,
	SessionManager,
	SettingsManager,
	type ToolDefinition,
} from "@mariozechner/pi-coding-agent";
import type { FeatureTool } from "../../features/feature-tool.js";
import type { AgentHandle, ImageAttachment, JsonObject, ModelInfo, RuntimeEvent, SessionFeatures, ThinkingLevel } from "../types.js";
import { noModelMessage, type PiEnvironment, toModelInfo } from "./environment.js";
import { recordEagerly, recordedUserMessages, waitForUserMessage, waitUntilRecorded } from "./recorder.js";

/** Where a session's conversation comes from. */
export type SessionSource =
	| { kind: "file"; path: string }
	| { kind: "new"; cwd: string; id?: string; parentSession?: string }
	| { kind: "memory"; cwd: string }
	/** A new recorded session holding the path from the root of `path` to `leafId` (null: empty, for a fork at the first message). */
	| { kind: "branch"; path: string; leafId: string | null };

export interface OpenSessionOptions {
	thinkingLevel?: ThinkingLevel;
	/** Tools and turn-start context from features (memory, ...). */
	features?: SessionFeatures;
}

/** Opens (or creates) a session and binds it, ready to prompt. */
export async function openPiSession(
	env: PiEnvironment,
	source: SessionSource,
	options: OpenSessionOptions = {},
): Promise<AgentHandle> {
	const manager = sessionManagerFor(source);
	const turnStart = new TurnStartAbort();
	const conversation: { session?: AgentSession } = {};
	const cwd = manager.getCwd();
	const settingsManager = SettingsManager.inMemory({}); // per session: pi's file-backed one is shared global state
	const resourceLoader = new DefaultResourceLoader({
		cwd,
		agentDir: env.agentDir,
		settingsManager,
		noExtensions: true, // extensions run arbitrary code; a headless service loads only its own
		noThemes: true,
		extensionFactories: [recordBeforeModelCall(manager, () => conversation.session?.agent.state.messages ?? []), ...(options.features ? [featureHooks(env, options.features, turnStart)] : [])],
	});
	await resourceLoader.reload();
	const { session } = await createAgentSession({
		cwd,
		agentDir: env.agentDir,
		authStorage: env.authStorage,
		modelRegistry: env.modelRegistry,
		settingsManager,
		resourceLoader,
		sessionManager: manager,
		model: env.requestedModel,
		thinkingLevel: options.thinkingLevel,
		// Every feature tool is allowed; which are active is decided per turn (see featureHooks).
		tools: [...env.tools, ...(options.features?.tools.map((t) => t.name) ?? [])],
		customTools: options.features?.tools.map(toPiTool),
	});
	conversation.session = session;
	if (options.features) session.setActiveToolsByName([...env.tools, ...options.features.activeToolNames()]);
	await session.bindExtensions({});
	return new PiAgentHandle(env, session, manager, turnStart);
}

/** Lets `abort` also stop turn-start work (feature context) that runs before the agent streams. */
class TurnStartAbort {
	private controller = new AbortController();
	get signal(): AbortSignal {
		return this.controller.signal;
	}
	abort(): void {
		this.controller.abort();
		this.controller = new AbortController();
	}
}

function sessionManagerFor(source: SessionSource): SessionManager {
	let manager: SessionManager;
	switch (source.kind) {
		case "file":
			manager = SessionManager.open(source.path);
			break;
		case "memory":
			return SessionManager.inMemory(source.cwd);
		case "new":
			manager = SessionManager.create(source.cwd);
			if (source.id !== undefined || source.parentSession !== undefined) {
				manager.newSession({ id: source.id, parentSession: source.parentSession });
			}
			break;
		case "branch":
			manager = SessionManager.open(source.path);
			if (source.leafId === null) manager.newSession({ parentSession: source.path });
			else manager.createBranchedSession(source.leafId);
			break;
	}
	recordEagerly(manager);
	return manager;
}

/**
 * An inline extension that holds each model request until the newest user message of the conversation is
 * on disk. It hooks the provider request (which pi does not copy), not the `context` event (which makes pi
 * clone the whole conversation on every model call).
 */
function recordBeforeModelCall(manager: SessionManager, messages: () => readonly unknown[]): ExtensionFactory {
	return (pi) => {
		pi.on("before_provider_request", async () => {
			const all = messages();
			for (let i = all.length - 1; i >= 0; i--) {
				const message = all[i] as { role?: unknown; timestamp?: unknown };
				if (message.role !== "user") continue;
				await waitUntilRecorded(manager, message);
				break;
			}
			return undefined;
		});
	};
}

/**
 * Feature hooks: before each prompt, activate the tools the features offer now (a backend switch applies to
 * new turns), and add their hidden context, never auto-submitted, never blocking the turn.
 */
function featureHooks(env: PiEnvironment, features: SessionFeatures, turnStart: TurnStartAbort): ExtensionFactory {
	const toolNames = () => [...env.tools, ...features.activeToolNames()];
	return (pi) => {
		// The session opens with this set (see openPiSession); changing it rebuilds the system prompt, so it
		// is done only when the set changed.
		let active = toolNames().join("\n");
		pi.on("before_agent_start", async (event, ctx) => {
			const names = toolNames();
			if (names.join("\n") !== active) {
				active = names.join("\n");
				pi.setActiveTools(names);
			}
			const signal = ctx.signal ? AbortSignal.any([ctx.signal, turnStart.signal]) : turnStart.signal;
			const context = await features.contextForPrompt(event.prompt, signal);
			return context ? { message: { customType: context.customType, content: context.content, display: false } } : undefined;
		});
	};
}

/** A feature tool as pi runs it: text out, errors as tool errors. */
function toPiTool(tool: FeatureTool): ToolDefinition {
	return defineTool({
		name: tool.name,
		label: tool.label,
		description: tool.description,
		parameters: tool.parameters,
		async execute(_toolCallId, params, signal) {
			const text = await tool.execute(params as never, signal);
			return { content: [{ type: "text", text }], details: {} };
		},
	}) as unknown as ToolDefinition;
}

class PiAgentHandle implements AgentHandle {
	/**
	 * Whether a run is in progress as clients see it: from agent_start to agent_end. pi stays "streaming" a
	 * moment after agent_end while its listeners settle; a prompt sent right after agent_end waits for that
	 * instead of being refused.
	 */
	private runActive = false;

	constructor(
		private readonly env: PiEnvironment,
		private readonly session: AgentSession,
		private readonly manager: SessionManager,
		private readonly turnStart: TurnStartAbort,
	) {
		session.subscribe((event) => {
			if (event.type === "agent_start") this.runActive = true;
			else if (event.type === "agent_end") this.runActive = false;
		});
	}

	get sessionId(): string {
		return this.session.sessionId;
	}
	get sessionFile(): string | undefined {
		return this.manager.isPersisted() ? this.session.sessionFile : undefined;
	}
	get cwd(): string {
		return this.manager.getCwd();
	}
	get isBusy(): boolean {
		return this.runActive || this.session.isCompacting;
	}

	async prompt(text: string, images?: ImageAttachment[]): Promise<void> {
		const model = this.session.model;
		if (!model || !this.env.modelRegistry.hasConfiguredAuth(model)) throw new Error(noModelMessage(this.env.agentDir));
		if (this.session.isStreaming && !this.runActive) await this.session.agent.waitForIdle();
		const before = recordedUserMessages(this.manager);
		return new Promise((resolve, reject) => {
			let accepted = false;
			const run = this.session.prompt(text, {
				images,
				source: "rpc",
				preflightResult: (ok) => {
					if (ok && !accepted) {
						accepted = true;
						// Acknowledge only once the prompt is on disk: an accepted prompt survives a crash.
						void waitForUserMessage(this.manager, before).then(resolve);
					}
				},
			});
			run.then(
				() => {
					if (!accepted) resolve(); // handled without a model run (e.g. an extension command)
				},
				(error: unknown) => {
					if (!accepted) reject(error instanceof Error ? error : new Error(String(error)));
				},
			);
		});
	}

	steer(text: string, images?: ImageAttachment[]): Promise<void> {
		return this.session.steer(text, images);
	}
	followUp(text: string, images?: ImageAttachment[]): Promise<void> {
		return this.session.followUp(text, images);
	}
	abort(): Promise<void> {
		this.turnStart.abort();
		return this.session.abort();
	}

	state() {
		const s = this.session;
		return {
			sessionId: s.sessionId,
			sessionFile: this.sessionFile,
			sessionName: s.sessionName,
			cwd: this.cwd,
			model: s.model ? toModelInfo(s.model) : undefined,
			thinkingLevel: s.thinkingLevel as ThinkingLevel,
			isStreaming: s.isStreaming,
			isCompacting: s.isCompacting,
			messageCount: s.messages.length,
			pendingMessageCount: s.pendingMessageCount,
			autoCompactionEnabled: s.autoCompactionEnabled,
			persisted: this.manager.isPersisted(),
		};
	}

	messages(): JsonObject[] {
		return this.session.messages as unknown as JsonObject[];
	}

	streamingMessage(): JsonObject | undefined {
		return this.runActive ? (this.session.state.streamingMessage as unknown as JsonObject | undefined) : undefined;
	}

	availableModels(): ModelInfo[] {
		return this.env.modelRegistry.getAvailable().map(toModelInfo);
	}

	async setModel(provider: string, modelId: string): Promise<ModelInfo> {
		const model = this.env.modelRegistry.getAvailable().find((m) => m.provider === provider && m.id === modelId);
		if (!model) {
			const known = this.env.modelRegistry.find(provider, modelId);
			throw new Error(
				known
					? `Model ${provider}/${modelId} has no credentials configured`
					: `Model not found: ${provider}/${modelId}`,
			);
		}
		await this.session.setModel(model);
		return toModelInfo(model);
	}

	availableThinkingLevels(): ThinkingLevel[] {
		return this.session.getAvailableThinkingLevels() as ThinkingLevel[];
	}

	setThinkingLevel(level: ThinkingLevel): ThinkingLevel {
		this.session.setThinkingLevel(level);
		return this.session.thinkingLevel as ThinkingLevel;
	}

	commands(): JsonObject[] {
		const s = this.session;
		return [
			...s.extensionRunner.getRegisteredCommands().map((c) => ({
				name: c.invocationName,
				description: c.description,
				source: "extension",
			})),
			...s.promptTemplates.map((t) => ({ name: t.name, description: t.description, source: "prompt" })),
			...s.resourceLoader.getSkills().skills.map((k) => ({
				name: `skill:${k.name}`,
				description: k.description,
				source: "skill",
			})),
		];
	}

	setName(name: string): void {
		this.session.setSessionName(name);
	}

	stats(): JsonObject {
		return { ...this.session.getSessionStats(), contextUsage: this.session.getContextUsage() } as JsonObject;
	}

	async compact(customInstructions?: string): Promise<JsonObject> {
		return (await this.session.compact(customInstructions)) as unknown as JsonObject;
	}

	leafEntryId(): string | undefined {
		return this.manager.getLeafId() ?? undefined;
	}

	parentEntryId(entryId: string): string | null {
		const entry = this.manager.getEntry(entryId);
		if (!entry) throw new Error(`Unknown entry ${entryId}`);
		return entry.parentId;
	}

	forkPoints(): Array<{ entryId: string; text: string }> {
		return this.session.getUserMessagesForForking();
	}

	subscribe(listener: (event: RuntimeEvent) => void): () => void {
		return this.session.subscribe((event) => listener(event as unknown as RuntimeEvent));
	}

	async settle(): Promise<void> {
		// Aborting records the partial reply (stopReason "aborted"); entries are appended synchronously as they
		// happen, so once the agent is idle everything is on disk.
		if (this.session.isStreaming) await this.session.abort();
		await this.session.agent.waitForIdle();
	}

	dispose(): void {
		this.session.dispose();
	}
}
