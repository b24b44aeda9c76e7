/**
 * Side chats on pi's SDK: a second AgentSession over an in-memory session manager that starts with a copy of
 * the main conversation, so the side agent knows what was said while nothing it says reaches the main
 * session or any file. It gets pi's read-only tools only, plus the tools the feature gives it; its runs are
 * bounded as the session's are (run-bound.ts: `session.maxTurnsPerRun`, reported as `run_stopped`).
 */
import { type AgentSession, SessionManager } from "@mariozechner/pi-coding-agent";
import { CodedError } from "../../shared/errors.js";
import { redactSecrets } from "../../shared/redact.js";
import type { JsonObject, RuntimeEvent, SideChatHandle, SideChatOptions, ThinkingLevel } from "../types.js";
import { noModelMessage, type PiEnvironment } from "./environment.js";
import { createPiSession } from "./create-session.js";
import { RunBound } from "./run-bound.js";
import type { PiSessionSettings } from "./session-settings.js";

/** pi's tools that only read: `grep` and `find` join them when the environment offers them (rg, fd installed). */
const READ_ONLY_TOOLS = ["read", "grep", "find", "ls"];
/** Tools that need no binary beyond Node. */
const ALWAYS_AVAILABLE = new Set(["read", "ls"]);

/**
 * Forks `main`'s conversation into a side chat. The messages are copied synchronously, before anything is
 * awaited, so the fork is the conversation at the call. The side session shares the main one's settings
 * manager (compaction and retry as the session has them; a side chat never writes settings).
 */
export async function openPiSideChat(env: PiEnvironment, main: AgentSession, settings: PiSessionSettings, options: SideChatOptions): Promise<SideChatHandle> {
	const cwd = main.sessionManager.getCwd();
	const manager = SessionManager.inMemory(cwd);
	// Copies, so that nothing the side session does can touch the main session's message objects. pi restores a
	// manager's messages as they were appended (compaction and branch summaries included), which is what the
	// main agent sees now.
	for (const message of main.messages) manager.appendMessage(structuredClone(message) as Parameters<SessionManager["appendMessage"]>[0]);
	const session = await createPiSession(env, {
		sessionManager: manager,
		settingsManager: settings.manager,
		model: main.model,
		thinkingLevel: main.thinkingLevel,
		tools: [...READ_ONLY_TOOLS.filter((t) => ALWAYS_AVAILABLE.has(t) || env.tools.includes(t)), ...options.tools.map((t) => t.name)],
		customTools: options.tools,
		resources: {
			noPromptTemplates: true, // a side message is sent as written
			appendSystemPromptOverride: (base) => [...base, options.instructions],
		},
	});
	await session.bindExtensions({});
	return new PiSideChat(env, session, () => settings.maxTurnsPerRun);
}

class PiSideChat implements SideChatHandle {
	/** From agent_start to agent_end, as clients see the run. */
	private running = false;
	/** The prompt being started (until its run begins or it fails); a number so an old prompt cannot clear a newer one. */
	private starting: number | undefined;
	private prompts = 0;
	private readonly own: JsonObject[] = [];
	private disposed = false;
	private readonly bound: RunBound;
	/** Listeners of the events this adapter adds to pi's (`run_stopped`). */
	private readonly listeners = new Set<(event: RuntimeEvent) => void>();

	constructor(
		private readonly env: PiEnvironment,
		private readonly session: AgentSession,
		maxTurnsPerRun: () => number,
	) {
		this.bound = new RunBound({ agent: session.agent, perRun: maxTurnsPerRun, abort: () => this.abort() });
		// Subscribed before anyone else, so the flags and messages are current when listeners see the event.
		session.subscribe((event) => {
			if (event.type === "agent_start") {
				this.running = true;
				this.starting = undefined;
			} else if (event.type === "agent_end") {
				const stopped = this.bound.ended(event.messages);
				if (stopped) for (const listener of this.listeners) listener({ type: "run_stopped", ...stopped });
				this.running = false;
			} else if (event.type === "message_end") this.own.push(event.message as unknown as JsonObject);
		});
	}

	get model(): string | undefined {
		const model = this.session.model;
		return model ? `${model.provider}/${model.id}` : undefined;
	}
	get thinkingLevel(): ThinkingLevel {
		return this.session.thinkingLevel as ThinkingLevel;
	}
	get isBusy(): boolean {
		return this.running || this.starting !== undefined;
	}

	async prompt(text: string): Promise<void> {
		if (this.disposed) throw new CodedError("unavailable", "This side chat is closed");
		if (this.isBusy) throw new CodedError("busy", "The side chat is answering: wait for its run to end, or abort it");
		const model = this.session.model;
		if (!model || !this.env.modelRegistry.hasConfiguredAuth(model)) throw new CodedError("unavailable", noModelMessage(this.env.agentDir));
		const id = ++this.prompts;
		this.starting = id;
		const started = () => {
			if (this.starting === id) this.starting = undefined;
		};
		try {
			// Right after agent_end pi is still settling: the prompt waits for it instead of being refused.
			if (this.session.isStreaming) await this.session.agent.waitForIdle();
		} catch (error) {
			started();
			throw error;
		}
		return new Promise((resolve, reject) => {
			let accepted = false;
			const run = this.session.prompt(text, {
				source: "rpc",
				expandPromptTemplates: false,
				preflightResult: (ok) => {
					if (ok && !accepted) {
						accepted = true;
						resolve();
					}
				},
			});
			run.then(
				() => {
					started();
					if (!accepted) resolve();
				},
				(error: unknown) => {
					started();
					if (!accepted) reject(new CodedError("failed", redactSecrets(error instanceof Error ? error.message : String(error))));
				},
			);
		});
	}

	abort(): Promise<void> {
		return this.session.abort();
	}

	messages(): JsonObject[] {
		return [...this.own];
	}

	streamingMessage(): JsonObject | undefined {
		return this.running ? (this.session.state.streamingMessage as unknown as JsonObject | undefined) : undefined;
	}

	subscribe(listener: (event: RuntimeEvent) => void): () => void {
		const off = this.session.subscribe((event) => listener(event as unknown as RuntimeEvent));
		this.listeners.add(listener);
		return () => {
			off();
			this.listeners.delete(listener);
		};
	}

	dispose(): void {
		if (this.disposed) return;
		this.disposed = true;
		this.bound.dispose();
		this.session.abortRetry();
		this.session.agent.abort(); // pi's dispose only disconnects: the model request must stop too
		this.session.dispose();
	}
}
