/**
 * Opens one chat session on pi's SDK: an AgentSession with its own settings, resources and recorder,
 * wrapped in the runtime's AgentHandle.
 */
import { type AgentSession, createAgentSession, DefaultResourceLoader, SessionManager, SettingsManager } from "@mariozechner/pi-coding-agent";
import type { AgentHandle, OpenSessionOptions, SessionSource } from "../types.js";
import { PiAgentHandle } from "./agent-handle.js";
import type { PiEnvironment } from "./environment.js";
import { featureHooks, recordBeforeModelCall, toPiTool } from "./extensions.js";
import { recordEagerly } from "./recorder.js";
import { TurnStartAbort } from "./turn-start.js";

/** Opens (or creates) a session and binds it, ready to prompt. */
export async function openPiSession(env: PiEnvironment, source: SessionSource, options: OpenSessionOptions = {}): Promise<AgentHandle> {
	const manager = sessionManagerFor(source);
	const turnStart = new TurnStartAbort();
	const conversation: { session?: AgentSession } = {};
	const cwd = manager.getCwd();
	const settingsManager = SettingsManager.inMemory({}); // per session: pi's file-backed one is shared global state
	const { features } = options;
	const resourceLoader = new DefaultResourceLoader({
		cwd,
		agentDir: env.agentDir,
		settingsManager,
		noExtensions: true, // extensions run arbitrary code; a headless service loads only its own
		noThemes: true,
		extensionFactories: [
			recordBeforeModelCall(manager, () => conversation.session?.agent.state.messages ?? []),
			...(features ? [featureHooks(env.tools, features, turnStart)] : []),
		],
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
		tools: [...env.tools, ...(features?.tools.map((t) => t.name) ?? [])],
		customTools: features?.tools.map(toPiTool),
	});
	conversation.session = session;
	if (features) session.setActiveToolsByName([...env.tools, ...features.activeToolNames()]);
	await session.bindExtensions({});
	return new PiAgentHandle(env, session, manager, turnStart);
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
