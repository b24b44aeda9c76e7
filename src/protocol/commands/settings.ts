/** How a session behaves on its own: delivery of queued messages, automatic compaction and retries. */
import { Type } from "typebox";
import { defineCommand, NoResult } from "../command.js";
import { QueueModeSchema } from "../schemas/session.js";

export const setSteeringMode = defineCommand({
	name: "set_steering_mode",
	summary: "How queued `steer` messages reach the run: `all` at once, or `one-at-a-time` (one per turn). Shown by get_state.",
	params: Type.Object({ mode: QueueModeSchema }, { additionalProperties: false }),
	result: NoResult,
	handler: async ({ mode }, context) => (await context.session()).handle.setSteeringMode(mode),
});

export const setFollowUpMode = defineCommand({
	name: "set_follow_up_mode",
	summary: "How queued `follow_up` messages are sent after the run: `all` at once, or `one-at-a-time`. Shown by get_state.",
	params: Type.Object({ mode: QueueModeSchema }, { additionalProperties: false }),
	result: NoResult,
	handler: async ({ mode }, context) => (await context.session()).handle.setFollowUpMode(mode),
});

export const setAutoCompaction = defineCommand({
	name: "set_auto_compaction",
	summary: "Turns automatic compaction (when the context window fills up) on or off for the session.",
	params: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }),
	result: NoResult,
	handler: async ({ enabled }, context) => (await context.session()).handle.setAutoCompaction(enabled),
});

export const setAutoRetry = defineCommand({
	name: "set_auto_retry",
	summary: "Turns automatic retries of failed model calls (overload, rate limits, server errors) on or off.",
	params: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }),
	result: NoResult,
	handler: async ({ enabled }, context) => (await context.session()).handle.setAutoRetry(enabled),
});

export const settingsCommands = [setSteeringMode, setFollowUpMode, setAutoCompaction, setAutoRetry];
