/**
 * `skiff`: parses flags, applies the start-up rules of the listener, starts the service and stops it
 * cleanly on Ctrl-C or SIGTERM. As a listener it never reads standard input; in `--mode rpc` standard input
 * and output carry the protocol (see rpc-mode.ts). It never touches the terminal's modes.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { parseAdvertisedOrigin } from "../listener/advertised-origin.js";
import { formatHostPort, isLoopbackHost, parseListenAddress } from "../listener/bind-address.js";
import { bannerLine, decideBindPolicy } from "../listener/bind-policy.js";
import { readTokenFile, tokenFileWarnings, tokenStrengthWarnings } from "../listener/token-file.js";
import type { WebPageSource } from "../listener/web-route.js";
import { redactSecrets } from "../shared/redact.js";
import { type Service, startService } from "../service.js";
import { claimAgentDir } from "./agent-dir-owner.js";
import { type CliOptions, parseCliArgs, UsageError } from "./args.js";
import { HELP_TEXT } from "./help.js";
import { runRpcMode } from "./rpc-mode.js";
import { EXIT_FAILURE, shutDown } from "./shutdown.js";
import { embeddedWebPage } from "./web-page.js";

const EXIT_USAGE = 2;

async function main(argv: string[]): Promise<void> {
	const options = parseCliArgs(argv);
	if (options.help) {
		process.stdout.write(HELP_TEXT);
		return;
	}
	if (options.version) {
		process.stdout.write(`skiff ${packageVersion()}\n`);
		return;
	}
	if (options.mode === "rpc") {
		const agentDir = agentDirectory();
		await claimAgentDir(agentDir, "rpc"); // released on exit
		return runRpcMode(options, agentDir, workingDirectory(options));
	}
	if (options.listen === undefined) {
		throw new UsageError(
			"skiff runs as a service: pass --listen <host:port>, for example --listen 127.0.0.1:8787, or --mode rpc to talk over standard input and output (see --help)",
		);
	}

	let address;
	let advertisedOrigin: string | undefined;
	try {
		address = parseListenAddress(options.listen);
		if (options.listenAdvertisedOrigin !== undefined) advertisedOrigin = parseAdvertisedOrigin(options.listenAdvertisedOrigin);
	} catch (error) {
		throw new UsageError(error instanceof Error ? error.message : String(error));
	}
	const token = options.listenTokenFile !== undefined ? readTokenFile(options.listenTokenFile) : undefined;
	const policy = decideBindPolicy({
		host: address.host,
		allowInsecureRemote: options.listenAllowInsecureRemote,
		tokenConfigured: token !== undefined,
	});
	if (!policy.ok) throw new UsageError(policy.error);
	for (const warning of policy.warnings) process.stderr.write(`${warning}\n`);
	if (options.listenTokenFile !== undefined && token !== undefined) {
		const warnings = [...tokenFileWarnings(options.listenTokenFile), ...tokenStrengthWarnings(options.listenTokenFile, token)];
		for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
	}

	const agentDir = agentDirectory();
	const cwd = workingDirectory(options);
	// Before the listener binds: a process refused the directory never prints a "listening" line. Released on exit.
	const owner = await claimAgentDir(agentDir, "listener");
	const announce = (port: number) => {
		const url = `http://${formatHostPort(address.host, port)}`;
		owner.listening(url);
		process.stdout.write(`${bannerLine(url, policy)}\n`);
		process.stdout.write(`Web UI: ${url}/web\n`);
	};
	// Signals are handled from the start: one that arrives while the core is still loading stops the service
	// as soon as it has started (its sessions are then recorded like any other).
	let stopping: NodeJS.Signals | undefined;
	let service: Service | undefined;
	const stop = (signal: NodeJS.Signals) => {
		if (stopping) {
			process.stderr.write(`${signal} again: exiting without waiting\n`);
			process.exit(EXIT_FAILURE);
		}
		stopping = signal;
		process.stderr.write(`${signal}: stopping runs, recording sessions, closing the listener\n`);
		if (service) shutDown(service);
	};
	process.on("SIGINT", stop);
	process.on("SIGTERM", stop);

	const loadStarted = performance.now();
	service = await startService({
		onListening: (bound) => announce(bound.port),
		agentDir,
		cwd,
		host: address.host,
		port: address.port,
		auth: { token, loopback: isLoopbackHost(address.host) },
		web: webPageSource(),
		advertisedOrigin,
		session: options.session,
		model: options.model,
		thinking: options.thinking,
		maxSessions: options.maxSessions,
	});
	for (const warning of service.warnings) process.stderr.write(`warning: ${redactSecrets(warning)}\n`);
	process.stdout.write(`${READY_LINE} (agent runtime loaded in ${Math.round(performance.now() - loadStarted)} ms)\n`);
	if (stopping) shutDown(service);
}

/** Printed once the agent runtime is loaded and the primary session is open (after the banner). */
const READY_LINE = "Ready";

/** The agent directory (created if missing): SKIFF_AGENT_DIR, else ~/.skiff/agent. */
function agentDirectory(): string {
	const agentDir = resolve(process.env.SKIFF_AGENT_DIR || join(homedir(), ".skiff", "agent"));
	mkdirSync(agentDir, { recursive: true });
	return agentDir;
}

function workingDirectory(options: CliOptions): string {
	return resolve(options.cwd ?? process.cwd());
}

function webPageSource(): WebPageSource {
	const dir = process.env.SKIFF_WEB_DEV_DIR;
	return dir ? { kind: "directory", dir: resolve(dir) } : embeddedWebPage();
}

function packageVersion(): string {
	const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
	return pkg.version;
}

main(process.argv.slice(2)).catch((error: unknown) => {
	const message = redactSecrets(error instanceof Error ? error.message : String(error));
	process.stderr.write(`skiff: ${message}\n`);
	process.exit(error instanceof UsageError ? EXIT_USAGE : EXIT_FAILURE);
});
