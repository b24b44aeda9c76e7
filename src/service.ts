/**
 * The composition root: builds the pi environment, the runtime manager, the command registry and the
 * listener, and owns their shutdown. The CLI and the tests start the service through here.
 */
import { openPiSession } from "./agent/pi/session.js";
import { createPiEnvironment } from "./agent/pi/environment.js";
import { warmUpProviders } from "./agent/pi/provider-warmup.js";
import { SessionCatalog } from "./agent/pi/session-catalog.js";
import { RuntimeManager, type StartupSession } from "./agent/runtime-manager.js";
import type { ThinkingLevel } from "./agent/types.js";
import type { AuthPolicy } from "./listener/auth.js";
import { type Listener, startListener } from "./listener/server.js";
import type { WebPageSource } from "./listener/web-route.js";
import { createCommandRegistry } from "./command-registry.js";
import { MemoryService } from "./memory/memory-service.js";
import { loadMemorySettings } from "./memory/settings.js";
import { createDispatcher } from "./protocol/dispatch.js";
import { createEventShaper } from "./protocol/event-shape.js";

export interface ServiceConfig {
	agentDir: string;
	cwd: string;
	host: string;
	port: number;
	auth: AuthPolicy;
	web: WebPageSource;
	session: StartupSession;
	model?: string;
	thinking?: ThinkingLevel;
	maxSessions?: number;
}

export interface Service {
	readonly listener: Listener;
	readonly runtime: RuntimeManager;
	/** Problems worth telling the operator at start-up (never secrets). */
	readonly warnings: string[];
	/** Closes the listener, then stops runs and records every session. Safe to call twice. */
	close(): Promise<void>;
}

export async function startService(config: ServiceConfig): Promise<Service> {
	const env = createPiEnvironment({ agentDir: config.agentDir, model: config.model });
	const warnings: string[] = [];
	if (env.modelsError) warnings.push(`models.json: ${env.modelsError}`);
	if (env.modelRegistry.getAvailable().length === 0) {
		warnings.push("No model has credentials yet: prompts will fail until one is configured (see README, Models).");
	}
	// Invalid memory settings stop start-up with a message naming the key.
	const memory = new MemoryService(config.agentDir, loadMemorySettings(config.agentDir), {
		log: (line) => process.stderr.write(`${line}\n`),
	});
	const runtime = new RuntimeManager({
		cwd: config.cwd,
		catalog: new SessionCatalog(env.sessionsDir),
		openSession: (source, options) => openPiSession(env, source, options),
		createEventShaper,
		sessionFeatures: (origin) => {
			const features = memory.forSession(origin);
			return { ...features, attach: (sessionId: string) => memory.attach(sessionId, features) };
		},
		maxLoadedSessions: config.maxSessions,
		thinkingLevel: config.thinking,
	});
	await runtime.start(config.session);
	const dispatcher = createDispatcher(createCommandRegistry({ memory }), runtime);
	let listener: Listener;
	try {
		listener = await startListener({
			host: config.host,
			port: config.port,
			auth: config.auth,
			dispatcher,
			runtime,
			web: config.web,
		});
	} catch (error) {
		await runtime.shutdown();
		throw error;
	}
	warmUpProviders(env);
	let closing: Promise<void> | undefined;
	return {
		listener,
		runtime,
		warnings,
		close: () => {
			closing ??= (async () => {
				await listener.close();
				await runtime.shutdown();
			})();
			return closing;
		},
	};
}
