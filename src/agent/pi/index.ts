/**
 * The pi adapter's one entry point for the composition root: the process-wide pi environment, the session
 * catalog and the session opener, as the runtime's own interfaces.
 */
import type { SessionCatalog, SessionOpener } from "../types.js";
import { createPiEnvironment } from "./environment.js";
import { openPiSession } from "./open-session.js";
import { cutEventStreamsIntoPieces } from "./event-stream-pieces.js";
import { warmUpProviders } from "./provider-warmup.js";
import { PiSessionCatalog, REAL_FOLDERS } from "./session-catalog.js";

export interface PiRuntime {
	readonly catalog: SessionCatalog;
	readonly openSession: SessionOpener;
	/** Problems worth telling the operator at start-up (never secrets). */
	readonly warnings: string[];
	/** Where sessions are recorded (`<agent-dir>/sessions`). */
	readonly sessionsDir: string;
	/** The tools every session gets (`grep` and `find` only when rg and fd are installed). */
	readonly tools: readonly string[];
	/** Loads the configured providers' SDKs in the background, so the first prompt does not wait for them; resolves once done. */
	warmUp(): Promise<void>;
}

/** Builds the pi side of the runtime. Throws when `model` (`provider/id`) names a model pi does not know. */
export function createPiRuntime(options: { agentDir: string; model?: string; warn?: (line: string) => void }): PiRuntime {
	const env = createPiEnvironment(options);
	cutEventStreamsIntoPieces();
	const warnings: string[] = [];
	if (env.modelsError) warnings.push(`models.json: ${env.modelsError}`);
	if (env.modelRegistry.getAvailable().length === 0) {
		warnings.push("No model has credentials yet: prompts will fail until one is configured (see README, Models).");
	}
	return {
		catalog: new PiSessionCatalog(env.sessionsDir, REAL_FOLDERS, (line) => env.warn(line)),
		openSession: (source, openOptions) => openPiSession(env, source, openOptions),
		warnings,
		sessionsDir: env.sessionsDir,
		tools: env.tools,
		warmUp: () => warmUpProviders(env),
	};
}
