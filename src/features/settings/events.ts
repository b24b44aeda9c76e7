/** The settings event: sent to every loaded session's followers after settings_apply or project_trust changed a value. */
import { type Static, Type } from "typebox";
import { defineEvent } from "../../protocol/event.js";
import { SettingScopeSchema } from "../../settings/schemas.js";

export const settingsChangedEvent = defineEvent("settings_changed", "Settings changed (settings_apply, project_trust): reload settings_inspect.", {
	scope: SettingScopeSchema,
	path: Type.String({ description: "The settings file that changed (or now counts, or no longer counts)." }),
	keys: Type.Array(Type.String(), { description: "The keys whose effective value changed." }),
});

export type SettingsChangedEvent = Omit<Static<typeof settingsChangedEvent.schema>, "sessionId" | "seq">;

export const settingsEvents = [settingsChangedEvent];
