/**
 * The seam every feature plugs into: one module object per feature folder (`features/<name>/index.ts`). It says
 * what the feature adds to the contract (settings, events, commands), what it gives the sessions it serves (tools,
 * hidden context, state bound to the session), and how it starts from the shared services. The composition root
 * lists the modules (`features/index.ts`) and knows none of them by name.
 *
 * Commands reach the feature's service through their context (`context.service(module.key)`), so the contract
 * can be listed, documented and checked without starting anything.
 */
import type { LoadedSession, RuntimeManager } from "../agent/runtime-manager.js";
import type { RuntimeEvent, SessionContribution, SessionOrigin } from "../agent/types.js";
import type { CollabRooms } from "../collab/rooms.js";
import type { CommandDefinition } from "../protocol/command.js";
import type { DoctorCheck } from "../protocol/commands/doctor.js";
import type { Mergeable } from "../protocol/delta-run.js";
import type { EventDefinition } from "../protocol/event.js";
import type { ServiceKey } from "../protocol/service-key.js";
import type { SettingDefinition } from "../settings/definition.js";
import type { SettingsService } from "../settings/settings-service.js";

/**
 * The kinds of session a feature may serve: a session a client opened (`top-level`), a job's child session
 * (`job`), and a persona's run (`persona`, a job whose agent is a persona).
 */
export const SESSION_KINDS = ["top-level", "job", "persona"] as const;
export type SessionKind = (typeof SESSION_KINDS)[number];

/** The shared services a feature starts from. */
export interface FeatureHost {
	readonly agentDir: string;
	/** Lines for the operator (standard error); never secrets. */
	log(line: string): void;
	readonly runtime: RuntimeManager;
	readonly settings: SettingsService;
	/** The names of the tools every session gets (agent definitions are checked against them). */
	readonly knownTools: readonly string[];
	/**
	 * Sends an event to the followers of one session, numbered with the session's own events. A streaming delta,
	 * bare or carried by the event as `merge` says, is merged with the next ones of the same stream that come
	 * within this turn of the event loop, as the session's own are (src/protocol/delta-run.ts).
	 */
	publish(sessionId: string, event: RuntimeEvent, merge?: Mergeable): void;
	/** The listener's collaboration rooms (absent in `--mode rpc`). */
	readonly collab?: CollabRooms;
	/** The service of a feature this one `needs` (started before it). */
	service<T>(key: ServiceKey<T>): T;
}

export interface FeatureModule<S = unknown> {
	/** Names the feature and files its service for commands. */
	readonly key: ServiceKey<S>;
	/** Features whose services `start` uses: they are started first (a loop among them is an error). */
	readonly needs?: readonly ServiceKey<unknown>[];
	readonly settings?: readonly SettingDefinition[];
	readonly events?: readonly EventDefinition[];
	readonly commands?: readonly CommandDefinition<any, any>[];
	/**
	 * Checks the feature's own settings in `<agent-dir>/settings.json` before the service announces itself:
	 * throws to stop start-up (the message names the key), returns warnings (never secrets). It runs before pi
	 * is loaded, so it reads settings only. `start` may then count on them.
	 */
	checkSettings?(agentDir: string): string[];
	/** Builds the service (undefined: the feature does not run in this process; its commands say why). */
	start(host: FeatureHost): S | undefined;
	/** What each session of the kinds it `serves` gets from the feature. */
	readonly sessions?: {
		readonly serves: readonly SessionKind[];
		contribute(service: S, origin: SessionOrigin): SessionContribution;
	};
	/**
	 * When the service stops, before its runs are stopped: finishes (or undoes) what must not be cut off half-way,
	 * and starts nothing more. The shutdown waits for it, so it must end in bounded time.
	 */
	stop?(service: S): Promise<void>;
	/** A check of the feature for `doctor`, about the addressed session (undefined: nothing to check, no line). */
	doctor?(service: S): (session: LoadedSession) => Promise<DoctorCheck | undefined>;
}

/** Identity helper that ties the module's parts to its service's type. */
export function defineFeature<S>(module: FeatureModule<S>): FeatureModule<S> {
	return module;
}
