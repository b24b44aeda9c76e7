/**
 * What every AgentSession Skiff makes goes through, a chat's (open-session.ts) and a side chat's
 * (side-chat.ts) alike: its resources loaded without pi's extensions and themes, the session created on the
 * environment's credentials and models, pi's per-call copy of the conversation kept for `context`
 * handlers only, and its streaming updates handed to extensions only when one has a handler for them. The caller binds the extensions once it has decided which tools are active.
 */
import { type AgentSession, type CreateAgentSessionOptions, createAgentSession, DefaultResourceLoader, type SessionManager, type SettingsManager } from "@mariozechner/pi-coding-agent";
import { copyContextOnlyForHandlers } from "./context-copy.js";
import { emitStreamingEventsOnlyToHandlers } from "./extension-events.js";
import type { PiEnvironment } from "./environment.js";
import { toPiTool } from "./extensions.js";

type ResourceLoaderOptions = ConstructorParameters<typeof DefaultResourceLoader>[0];

export interface PiSessionParts {
	/** The session's messages and file; its cwd is the session's. */
	sessionManager: SessionManager;
	settingsManager: SettingsManager;
	model: CreateAgentSessionOptions["model"];
	thinkingLevel: CreateAgentSessionOptions["thinkingLevel"];
	/** The tools allowed, by name (pi's and the custom ones); undefined: any registered (what is active is set apart). */
	tools: string[] | undefined;
	/** The feature tools the session may call. */
	customTools: ReadonlyArray<Parameters<typeof toPiTool>[0]>;
	/** What the session's resources add: Skiff's own extensions, system prompt text, no prompt templates. */
	resources?: Pick<ResourceLoaderOptions, "extensionFactories" | "appendSystemPromptOverride" | "noPromptTemplates">;
}

/** A new AgentSession, not yet bound to its extensions. */
export async function createPiSession(env: PiEnvironment, parts: PiSessionParts): Promise<AgentSession> {
	const cwd = parts.sessionManager.getCwd();
	const resourceLoader = new DefaultResourceLoader({
		cwd,
		agentDir: env.agentDir,
		settingsManager: parts.settingsManager,
		noExtensions: true, // extensions run arbitrary code; a headless service loads only its own
		noThemes: true,
		...parts.resources,
	});
	await resourceLoader.reload();
	const { session } = await createAgentSession({
		cwd,
		agentDir: env.agentDir,
		authStorage: env.authStorage,
		modelRegistry: env.modelRegistry,
		settingsManager: parts.settingsManager,
		resourceLoader,
		sessionManager: parts.sessionManager,
		model: parts.model,
		thinkingLevel: parts.thinkingLevel,
		tools: parts.tools,
		customTools: parts.customTools.map(toPiTool),
	});
	copyContextOnlyForHandlers(session);
	emitStreamingEventsOnlyToHandlers(session);
	return session;
}
