/**
 * The composition root. It starts the listener first, so the service answers (and prints its banner) at
 * once, then loads the core (pi, memory, runtime, commands) in the background: commands that arrive
 * meanwhile wait for it. The CLI and the tests start the service through here.
 */
import type { AddressInfo } from "node:net";
import type { RuntimeManager } from "./agent/runtime-manager.js";
import type { CoreConfig } from "./core.js";
import type { AuthPolicy } from "./listener/auth.js";
import { type Listener, startListener } from "./listener/server.js";
import type { WebPageSource } from "./listener/web-route.js";
import { deferredDispatcher } from "./protocol/deferred-dispatcher.js";
import type { Dispatcher } from "./protocol/dispatch.js";

export interface ServiceConfig extends CoreConfig {
	host: string;
	port: number;
	auth: AuthPolicy;
	web: WebPageSource;
	/** Called as soon as the listener is bound, before the core is loaded (the CLI prints its banner here). */
	onListening?: (address: AddressInfo) => void;
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
	let coreReady!: (dispatcher: Dispatcher) => void;
	let coreFailed!: (error: unknown) => void;
	const ready = new Promise<Dispatcher>((resolve, reject) => {
		coreReady = resolve;
		coreFailed = reject;
	});
	ready.catch(() => undefined); // the failure is reported by startService itself
	const listener = await startListener({
		host: config.host,
		port: config.port,
		auth: config.auth,
		dispatcher: deferredDispatcher(ready),
		web: config.web,
	});
	config.onListening?.(listener.address);
	let core;
	try {
		const { loadCore } = await import("./core.js");
		core = await loadCore(config);
	} catch (error) {
		coreFailed(error);
		await listener.close();
		throw error;
	}
	coreReady(core.dispatcher);
	core.warmUp();
	const { runtime } = core;
	let closing: Promise<void> | undefined;
	return {
		listener,
		runtime,
		warnings: core.warnings,
		close: () => {
			closing ??= (async () => {
				await listener.close();
				await runtime.shutdown();
			})();
			return closing;
		},
	};
}
