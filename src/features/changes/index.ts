/**
 * What the agent changed in a session's working directory, for a Changes panel: the changed files against a
 * base (git's HEAD or the session's start; outside git, what the session's edit and write calls found), one
 * file's diff, a revert that trashes rather than deletes, and `changes_updated` after file-writing tool calls.
 */
import { serviceKey } from "../../protocol/service-key.js";
import { defineFeature } from "../module.js";
import { changesCommands } from "./commands.js";
import { changesEvents } from "./events.js";
import { ChangesService } from "./service.js";

const key = serviceKey<ChangesService>("changes");

export const changesFeature = defineFeature({
	key,
	events: changesEvents,
	commands: changesCommands(key),
	start: (host) => new ChangesService({ agentDir: host.agentDir, observe: (observer) => host.runtime.observe(observer), publish: (id, event) => host.publish(id, event) }),
	stop: async (changes) => changes.stop(),
	// Sessions a client opened: a job's or persona's child works in the same folder, and its calls are announced through its own session.
	sessions: { serves: ["top-level"], contribute: (changes, origin) => changes.contribution(origin) },
});

export type { ChangesService } from "./service.js";
