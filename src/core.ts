/**
 * The heavy half of the composition root, loaded after the listener is up: the settings, pi, the memory
 * subsystem, the runtime manager, the event streams, every command and the dispatcher. Loading pi takes about a second;
 * nothing here is imported before the start-up banner.
 */
import { join } from "node:path";
import { createPiRuntime } from "./agent/pi/index.js";
import { RuntimeManager, type StartupSession } from "./agent/runtime-manager.js";
import type { SessionContribution, SessionOrigin, ThinkingLevel } from "./agent/types.js";
import type { CollabRooms } from "./collab/rooms.js";
import { createCommandRegistry, createSettingsCatalog } from "./contract.js";
import { stopGitGroups } from "./features/git-groups.js";
import { FEATURES } from "./features/index.js";
import type { FeatureModule } from "./features/module.js";
import { sessionFeaturesFor } from "./features/session-policy.js";
import { startFeatures } from "./features/start.js";
import type { ServiceReach } from "./protocol/commands/doctor.js";
import { AttachmentStore } from "./protocol/attachment-store.js";
import { createDispatcher, type Dispatcher } from "./protocol/dispatch.js";
import { EventStreams } from "./protocol/event-streams.js";
import { sessionSettingsConsumer } from "./settings/session-consumer.js";
import { SettingsService } from "./settings/settings-service.js";

export interface CoreConfig {
	agentDir: string;
	cwd: string;
	session: StartupSession;
	model?: string;
	thinking?: ThinkingLevel;
	maxSessions?: number;
	/** How clients reach the service (for `doctor`); standard input and output when absent. */
	reach?: ServiceReach;
	/** The listener's collaboration rooms (absent in `--mode rpc`, where the collab commands are unavailable). */
	collab?: CollabRooms;
	/** The features to run (every feature of the service unless a test brings its own list). */
	features?: readonly FeatureModule<any>[];
}

export interface Core {
	readonly runtime: RuntimeManager;
	readonly dispatcher: Dispatcher;
	/** Problems worth telling the operator at start-up (never secrets). */
	readonly warnings: string[];
	/** Loads provider SDKs in the background (see provider-warmup); resolves once done (it never fails). */
	warmUp(): Promise<void>;
	/**
	 * Stops the service's work: first the features' own (`stop`: what must finish or be undone rather than be
	 * cut off, such as a workflow moving a branch), then every run, recording and unloading every session, then
	 * every git still running or left behind (src/features/git-groups.ts).
	 */
	shutdown(): Promise<void>;
}

export async function loadCore(config: CoreConfig): Promise<Core> {
	const log = (line: string) => process.stderr.write(`${line}\n`);
	const features = config.features ?? FEATURES;
	// The settings were checked before the service announced itself (checkSettingsAtStart, src/service.ts).
	const settings = new SettingsService({ agentDir: config.agentDir, catalog: createSettingsCatalog(features), log });
	// Every session reads the settings as it opens, and hears of their changes.
	settings.addConsumer(sessionSettingsConsumer({ log }));
	const pi = createPiRuntime({ agentDir: config.agentDir, model: config.model });
	// Sessions open only once the features have started (runtime.start, below), so the policy is there by then.
	let sessionFeatures: (origin: SessionOrigin) => SessionContribution = () => {
		throw new Error("A session opened before the features started");
	};
	const runtime = new RuntimeManager({
		cwd: config.cwd,
		catalog: pi.catalog,
		openSession: (source, options) => pi.openSession(source, { ...options, settings: (cwd) => settings.sessionSettings(cwd) }),
		sessionFeatures: (origin) => sessionFeatures(origin),
		maxLoadedSessions: config.maxSessions,
		thinkingLevel: config.thinking,
	});
	const streams = new EventStreams(runtime); // observes from the first session on
	const { started, services, doctorChecks } = startFeatures(features, {
		agentDir: config.agentDir,
		log,
		runtime,
		settings,
		knownTools: pi.tools,
		publish: (sessionId, event, merge) => streams.hub(sessionId).offer(event, merge),
		collab: config.collab,
	});
	sessionFeatures = sessionFeaturesFor(started);
	await runtime.start(config.session);
	const service = { agentDir: config.agentDir, sessionsDir: pi.sessionsDir, tools: pi.tools, reach: config.reach ?? { transport: "stdio" as const } };
	const registry = createCommandRegistry(features, { service, checks: doctorChecks });
	// Uploads (POST /attachments) live in the agent directory, which one process owns (agent-dir-owner.ts).
	const attachments = new AttachmentStore(join(config.agentDir, "attachments"));
	await attachments.open();
	const dispatcher = createDispatcher(registry, { runtime, streams, attachments }, services);
	const shutdown = async () => {
		attachments.close();
		await Promise.allSettled(started.map(({ module, service }) => (module.stop && service !== undefined ? module.stop(service) : undefined)));
		await runtime.shutdown();
		// Last, once nothing starts git any more: every git still running (a hook that hangs) and whatever a git
		// left behind stop with the service (SIGTERM, then SIGKILL after a grace).
		await stopGitGroups();
	};
	return { runtime, dispatcher, warnings: [...pi.warnings], warmUp: () => pi.warmUp(), shutdown };
}
