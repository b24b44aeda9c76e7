/**
 * The composition root: builds the pi environment, the runtime manager, the command registry and the
 * listener, and owns their shutdown. The CLI and the tests start the service through here.
 */
import { createPiRuntime } from "./agent/pi/index.js";
import { RuntimeManager, type StartupSession } from "./agent/runtime-manager.js";
import type { ThinkingLevel } from "./agent/types.js";
import type { AuthPolicy } from "./listener/auth.js";
import { type Listener, startListener } from "./listener/server.js";
import type { WebPageSource } from "./listener/web-route.js";
import { createCommandRegistry } from "./command-registry.js";
import { MemoryService } from "./memory/memory-service.js";
import { loadMemorySettings } from "./memory/settings.js";
import { createDispatcher } from "./protocol/dispatch.js";
import { EventStreams } from "./protocol/event-streams.js";

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
	const pi = createPiRuntime({ agentDir: config.agentDir, model: config.model });
	const warnings = [...pi.warnings];
	// Invalid memory settings stop start-up with a message naming the key.
	const memory = new MemoryService(config.agentDir, loadMemorySettings(config.agentDir), {
		log: (line) => process.stderr.write(`${line}\n`),
	});
	const runtime = new RuntimeManager({
		cwd: config.cwd,
		catalog: pi.catalog,
		openSession: pi.openSession,
		sessionFeatures: (origin) => {
			const features = memory.forSession(origin);
			return { ...features, attach: (sessionId: string) => memory.attach(sessionId, features) };
		},
		maxLoadedSessions: config.maxSessions,
		thinkingLevel: config.thinking,
	});
	const streams = new EventStreams(runtime); // observes from the first session on
	await runtime.start(config.session);
	const dispatcher = createDispatcher(createCommandRegistry({ memory }), { runtime, streams });
	let listener: Listener;
	try {
		listener = await startListener({
			host: config.host,
			port: config.port,
			auth: config.auth,
			dispatcher,
			web: config.web,
		});
	} catch (error) {
		await runtime.shutdown();
		throw error;
	}
	pi.warmUp();
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
