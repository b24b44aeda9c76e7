/**
 * The composition root. It checks the settings first (light: no pi), so a refusal never follows the banner;
 * then it starts the transport (the listener, or standard input and output in `--mode rpc`), so the service is
 * bound (and prints its banner) at once, then loads the core (pi, memory, runtime, commands): connections and
 * commands that arrive meanwhile wait for it. The CLI and the tests start the service through here.
 */
import type { AddressInfo } from "node:net";
import type { RuntimeManager } from "./agent/runtime-manager.js";
import { CollabRooms } from "./collab/rooms.js";
import type { CoreConfig } from "./core.js";
import { collabLinkOrigin } from "./listener/advertised-origin.js";
import type { AuthPolicy } from "./listener/auth.js";
import { startIdleCollection } from "./shared/idle-collection.js";
import { type Listener, startListener } from "./listener/server.js";
import type { WebPageSource } from "./listener/web-route.js";
import { deferredDispatcher } from "./protocol/deferred-dispatcher.js";
import type { Dispatcher } from "./protocol/dispatch.js";
import { StdioTransport } from "./stdio/stdio-transport.js";
import type { LineOutput } from "./stdio/stdout-guard.js";

export interface ServiceConfig extends CoreConfig {
	host: string;
	port: number;
	auth: AuthPolicy;
	web: WebPageSource;
	/** `--listen-advertised-origin`, already validated: the origin of collaboration links. */
	advertisedOrigin?: string;
	/** Called as soon as the listener is bound, before the core is loaded (the CLI prints its banner here). */
	onListening?: (address: AddressInfo) => void;
}

export interface Service {
	readonly listener: Listener;
	readonly runtime: RuntimeManager;
	/** Problems worth telling the operator at start-up (never secrets). */
	readonly warnings: string[];
	/**
	 * Closes the listener, lets the features finish what must not be cut off (a workflow moving a branch), then
	 * stops runs and records every session. Safe to call twice.
	 */
	close(): Promise<void>;
}

/** A promise of the real dispatcher, settled by the composition root once the core is loaded (or failed). */
function pendingCore() {
	let coreReady!: (dispatcher: Dispatcher) => void;
	let coreFailed!: (error: unknown) => void;
	const ready = new Promise<Dispatcher>((resolve, reject) => {
		coreReady = resolve;
		coreFailed = reject;
	});
	ready.catch(() => undefined); // the failure is reported by the start function itself
	return { ready, coreReady, coreFailed };
}

/** The settings checked as start-up checks them (see checkSettingsAtStart); throws the refusal. */
async function checkSettings(config: CoreConfig): Promise<string[]> {
	const { checkSettingsAtStart } = await import("./contract.js");
	return checkSettingsAtStart(config.agentDir, config.features);
}

export async function startService(config: ServiceConfig): Promise<Service> {
	const settingsWarnings = await checkSettings(config); // before the listener: its banner means "starting"
	const { ready, coreReady, coreFailed } = pendingCore();
	// Rooms are started by commands (once the core is loaded) and seated by the listener; links need its address.
	let bound: AddressInfo | undefined;
	const collab = new CollabRooms({ linkOrigin: (baseUrl) => collabLinkOrigin(baseUrl, config.advertisedOrigin, bound!) });
	const listener = await startListener({
		host: config.host,
		port: config.port,
		auth: config.auth,
		dispatcher: deferredDispatcher(ready),
		web: config.web,
		collab,
	});
	bound = listener.address;
	config.onListening?.(listener.address);
	let core;
	try {
		const { loadCore } = await import("./core.js");
		const reach = { transport: "listener" as const, url: urlOf(listener.address), loopback: config.auth.loopback, token: config.auth.token !== undefined };
		core = await loadCore({ ...config, reach, collab });
	} catch (error) {
		coreFailed(error);
		await listener.close();
		throw error;
	}
	coreReady(core.dispatcher);
	const stopIdleCollection = startIdleCollection(core.warmUp());
	const { runtime } = core;
	let closing: Promise<void> | undefined;
	return {
		listener,
		runtime,
		warnings: [...settingsWarnings, ...core.warnings],
		close: () => {
			closing ??= (async () => {
				stopIdleCollection();
				await listener.close();
				await core.shutdown();
			})();
			return closing;
		},
	};
}

export interface RpcServiceConfig extends CoreConfig {
	input: NodeJS.ReadableStream;
	/** Standard output, taken over for protocol lines (see takeOverStdout). */
	output: LineOutput;
	/** The client is done (end of input, or its end of the output closed): the CLI stops the service. */
	onClientGone: (reason: string) => void;
}

export interface RpcService {
	readonly runtime: RuntimeManager;
	readonly warnings: string[];
	/**
	 * Answers every command read so far (stopping runs and shell commands, so none waits for long), records every
	 * session, unloads them and flushes standard output. Safe to call twice.
	 */
	close(): Promise<void>;
}

/**
 * `--mode rpc`: the protocol over standard input and output, without a listener. Input is read at once; commands
 * wait for the core. If the core fails to load, waiting commands are answered with the reason before it throws.
 */
export async function startRpcService(config: RpcServiceConfig): Promise<RpcService> {
	const { ready, coreReady, coreFailed } = pendingCore();
	const transport = new StdioTransport({
		dispatcher: deferredDispatcher(ready),
		input: config.input,
		output: config.output,
		onEnd: config.onClientGone,
	});
	let core;
	let settingsWarnings: string[];
	try {
		settingsWarnings = await checkSettings(config);
		const { loadCore } = await import("./core.js");
		core = await loadCore(config);
	} catch (error) {
		// The core loads without yielding to the event loop (it is one synchronous script), so input has not been
		// read yet: two turns of the loop, one that starts reading and one that reads what waits, and every
		// command the client sent before the failure is answered with the reason.
		for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
		transport.stopReading();
		coreFailed(error); // commands read so far are answered with the reason
		await transport.idle();
		transport.close();
		await transport.flush();
		throw error;
	}
	const { runtime } = core;
	// Events of the primary flow before any waiting command runs, so none of their events is missed.
	transport.start(core.dispatcher, runtime.primary!.id);
	coreReady(core.dispatcher);
	const stopIdleCollection = startIdleCollection(core.warmUp());
	let closing: Promise<void> | undefined;
	return {
		runtime,
		warnings: [...settingsWarnings, ...core.warnings],
		close: () => {
			closing ??= (async () => {
				stopIdleCollection();
				transport.stopReading();
				await runtime.interrupt();
				await transport.idle();
				await core.shutdown();
				transport.close();
				await transport.flush();
			})();
			return closing;
		},
	};
}

/** The listener's base URL (an IPv6 address in brackets). */
function urlOf(address: AddressInfo): string {
	const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
	return `http://${host}:${address.port}`;
}
