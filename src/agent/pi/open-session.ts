/**
 * Opens one chat session on pi's SDK: an AgentSession with its own settings (Skiff's, for its cwd), resources
 * and recorder, wrapped in the runtime's AgentHandle.
 */
import { type AgentSession, SessionManager } from "@mariozechner/pi-coding-agent";
import { CodedError } from "../../shared/errors.js";
import { type AgentHandle, DamagedSessionFileError, type OpenSessionOptions, type SessionOriginEntry, type SessionSource } from "../types.js";
import { PiAgentHandle } from "./agent-handle.js";
import type { PiEnvironment } from "./environment.js";
import { createPiSession } from "./create-session.js";
import { featureHooks, featureToolNames, recordBeforeModelCall } from "./extensions.js";
import { SessionRecorder } from "./recorder.js";
import { PiSessionSettings } from "./session-settings.js";
import { checkSessionFile } from "./session-file-check.js";
import { ORIGIN_ENTRY_TYPE } from "./session-origin.js";
import { TurnStartAbort } from "./turn-start.js";

/** Opens (or creates) a session and binds it, ready to prompt. */
export async function openPiSession(env: PiEnvironment, source: SessionSource, options: OpenSessionOptions = {}): Promise<AgentHandle> {
	if (source.kind === "file" || source.kind === "branch") openableFile(env, source.path);
	const { manager, recorder } = sessionManagerFor(source);
	if (source.kind === "new" && options.recordAs) {
		const { kind, ownerId, parentSessionId } = options.recordAs;
		const record: SessionOriginEntry = { kind, sessionId: manager.getSessionId(), ...(parentSessionId ? { parentSessionId } : {}), ...(ownerId ? { ownerId } : {}) };
		manager.appendCustomEntry(ORIGIN_ENTRY_TYPE, record);
	}
	const turnStart = new TurnStartAbort();
	const conversation: { session?: AgentSession } = {};
	const cwd = manager.getCwd();
	// Per session, from Skiff's settings for its cwd: pi's file-backed manager is shared global state.
	const settings = new PiSessionSettings(options.settings?.(cwd) ?? {});
	const settingsManager = settings.manager;
	const { features, profile } = options;
	// A profile narrows the core tools and brings its own, which stay active whatever the features decide.
	const coreTools = profile?.coreTools ? env.tools.filter((t) => profile.coreTools!.includes(t)) : [...env.tools];
	const ownTools = profile?.tools ?? [];
	const alwaysActive = [...coreTools, ...ownTools.map((t) => t.name)];
	const model = profile?.model ? profileModel(env, profile.model) : env.requestedModel;
	const session = await createPiSession(env, {
		sessionManager: manager,
		settingsManager,
		model,
		thinkingLevel: options.thinkingLevel,
		// Every feature tool is allowed; which are active is decided per turn (see featureHooks). pi fixes its
		// allow-list when the session is made, so a session whose features bring tools later (MCP servers') has
		// none: what it offers is still only what syncTools and featureHooks activate.
		tools: features?.dynamicTools ? undefined : [...alwaysActive, ...(features?.tools.map((t) => t.name) ?? [])],
		customTools: [...(features?.tools ?? []), ...ownTools],
		resources: {
			...(profile?.systemPrompt ? { appendSystemPromptOverride: (base: string[]) => [...base, profile.systemPrompt!] } : {}),
			extensionFactories: [
				recordBeforeModelCall(recorder, () => conversation.session?.agent.state.messages ?? []),
				...(features ? [featureHooks(alwaysActive, features, turnStart)] : []),
			],
		},
	});
	conversation.session = session;
	// A profile's own tools stay active whatever the features decide.
	const syncTools = () => {
		if (features || profile) session.setActiveToolsByName(features ? featureToolNames(alwaysActive, features) : alwaysActive);
	};
	syncTools();
	await session.bindExtensions({});
	const handle = new PiAgentHandle(env, session, manager, recorder, turnStart, settings, profile?.maxTurns);
	// Features that keep state in the session rebuild it from the branch just opened.
	features?.bind?.(handle.featureSession(syncTools), { reopened: source.kind === "file" });
	return handle;
}

/** The model a profile names (`provider/id`); throws when pi does not know it or it has no credentials. */
function profileModel(env: PiEnvironment, reference: string) {
	const slash = reference.indexOf("/");
	const model = slash > 0 ? env.modelRegistry.find(reference.slice(0, slash), reference.slice(slash + 1)) : undefined;
	if (!model) throw new CodedError("not_found", `Model not found: ${reference} (use provider/id, as get_available_models lists them)`);
	if (!env.modelRegistry.hasConfiguredAuth(model)) throw new CodedError("unavailable", `Model ${reference} has no credentials configured`);
	return model;
}

/** Checks a recorded file before pi reads it: repairs are reported, a file set aside cannot be opened. */
function openableFile(env: PiEnvironment, path: string): void {
	const check = checkSessionFile(path);
	for (const warning of check.warnings) env.warn(warning);
	if (check.outcome === "set-aside") {
		throw new DamagedSessionFileError(`Session file ${path} is damaged (its first line is not a session header); it was set aside as ${check.keptAs}`);
	}
}

/** The session manager for a source, with Skiff's recorder installed before anything is written. */
function sessionManagerFor(source: SessionSource): { manager: SessionManager; recorder: SessionRecorder } {
	if (source.kind === "memory") {
		const manager = SessionManager.inMemory(source.cwd);
		return { manager, recorder: new SessionRecorder(manager) };
	}
	const manager = source.kind === "new" ? SessionManager.create(source.cwd) : SessionManager.open(source.path);
	const recorder = new SessionRecorder(manager);
	if (source.kind === "new" && (source.id !== undefined || source.parentSession !== undefined)) {
		manager.newSession({ id: source.id, parentSession: source.parentSession });
	}
	if (source.kind === "branch") {
		if (source.leafId === null) manager.newSession({ parentSession: source.path });
		else manager.createBranchedSession(source.leafId);
		recorder.writeIfUnwritten(); // the branch holds messages: its file exists from now on
	}
	return { manager, recorder };
}
