/**
 * `skiff --mode rpc`: the protocol over standard input and output, for pi's RpcClient and anything written
 * for pi's RPC mode. Standard output carries only JSON lines (responses and events); every warning goes to
 * standard error. The end of standard input, a closed standard output, SIGTERM or Ctrl-C stop the service
 * cleanly: every command read is answered, runs are stopped, sessions recorded, output flushed, exit 0.
 */
import { redactSecrets } from "../shared/redact.js";
import { type RpcService, startRpcService } from "../service.js";
import { takeOverStdout } from "../stdio/stdout-guard.js";
import type { CliOptions } from "./args.js";
import { EXIT_FAILURE, shutDown } from "./shutdown.js";

export async function runRpcMode(options: CliOptions, agentDir: string, cwd: string): Promise<void> {
	const output = takeOverStdout();
	let service: RpcService | undefined;
	let stopping: string | undefined;
	const stop = (reason: string) => {
		if (stopping) {
			if (reason === "SIGINT" || reason === "SIGTERM") {
				process.stderr.write(`${reason} again: exiting without waiting\n`);
				process.exit(EXIT_FAILURE);
			}
			return;
		}
		stopping = reason;
		process.stderr.write(`skiff: ${reason}: stopping runs, recording sessions\n`);
		if (service) shutDown(service);
	};
	process.on("SIGINT", () => stop("SIGINT"));
	process.on("SIGTERM", () => stop("SIGTERM"));
	// When the core fails to load, waiting commands are answered with the reason; main() reports it and exits 1.
	service = await startRpcService({
		agentDir,
		cwd,
		session: options.session,
		model: options.model,
		thinking: options.thinking,
		maxSessions: options.maxSessions,
		input: process.stdin,
		output,
		onClientGone: stop,
	});
	for (const warning of service.warnings) process.stderr.write(`warning: ${redactSecrets(warning)}\n`);
	if (stopping) shutDown(service);
}
