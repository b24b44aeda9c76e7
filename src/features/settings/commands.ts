/**
 * The settings commands (for the settings panel and scripts): inspect the effective values, edit a file
 * through a draft, apply it, and trust a project. After every change `settings_changed` goes to every loaded
 * session, so each client (and panel) updates without polling.
 */
import { Type } from "typebox";
import { defineCommand, NoFields, NoResult } from "../../protocol/command.js";
import type { CommandContext } from "../../protocol/context.js";
import { ApplyResultSchema, DraftViewSchema, InspectResultSchema, SettingScopeSchema, TrustResultSchema } from "../../settings/schemas.js";
import { type SettingsChangedEvent, settingsChangedEvent } from "./events.js";
import type { SettingsService } from "../../settings/settings-service.js";
import type { ServiceKey } from "../../protocol/service-key.js";

/** Longest draft id or key accepted (ids are UUIDs; keys are short dotted names). */
const MAX_ID_LENGTH = 64;
const DraftId = Type.String({ minLength: 1, maxLength: MAX_ID_LENGTH, description: "From settings_open_draft." });
const Key = Type.String({ minLength: 1, maxLength: MAX_ID_LENGTH, description: "A key of the catalog (settings_inspect)." });

/** Tells every loaded session's followers that settings changed (nothing when no key did). */
function announce(context: CommandContext, event: Omit<SettingsChangedEvent, "type">): void {
	if (event.keys.length === 0) return;
	for (const session of context.runtime.loadedSessions()) context.streams.hub(session.id).publish({ type: settingsChangedEvent.type, ...event });
}

export function settingsFeatureCommands(settings: ServiceKey<SettingsService>) {
	return [
		defineCommand({
			name: "settings_inspect",
			summary:
				"Every setting Skiff honours, for the addressed session: its effective value and where it comes from (default, " +
				"global, project, runtime), what each file holds, what it accepts, and when a change takes effect. Secrets show " +
				"only as the redaction marker.",
			params: NoFields,
			result: InspectResultSchema,
			handler: async (_params, context) => context.service(settings).inspect(await context.session()),
		}),
		defineCommand({
			name: "settings_open_draft",
			summary:
				"Opens a draft of the global settings file, or of the addressed session's project file (the project must be " +
				"trusted). Drafts live in memory until applied or cancelled (at most 32; one unused for 30 minutes expires).",
			params: Type.Object({ scope: SettingScopeSchema }, { additionalProperties: false }),
			result: DraftViewSchema,
			handler: async ({ scope }, context) => context.service(settings).openDraft(scope, (await context.session()).handle.cwd),
		}),
		defineCommand({
			name: "settings_set",
			summary:
				"Sets a key in a draft. The value is checked against the key's type and range (the error names the key and " +
				"what it allows); a secret takes only a `$VAR` reference to an environment variable.",
			params: Type.Object({ draftId: DraftId, key: Key, value: Type.Unknown({ description: "The new value (JSON of the key's type)." }) }, { additionalProperties: false }),
			result: DraftViewSchema,
			handler: ({ draftId, key, value }, context) => context.service(settings).set(draftId, key, value),
		}),
		defineCommand({
			name: "settings_reset",
			summary: "Removes a key from the draft's file: its value then comes from the global file (for a project) or its default.",
			params: Type.Object({ draftId: DraftId, key: Key }, { additionalProperties: false }),
			result: DraftViewSchema,
			handler: ({ draftId, key }, context) => context.service(settings).reset(draftId, key),
		}),
		defineCommand({
			name: "settings_validate",
			summary: "The draft with every problem that would stop settings_apply (keys that must go together, a `$VAR` that is not set, ...).",
			params: Type.Object({ draftId: DraftId }, { additionalProperties: false }),
			result: DraftViewSchema,
			handler: ({ draftId }, context) => context.service(settings).validate(draftId),
		}),
		defineCommand({
			name: "settings_apply",
			summary:
				"Writes the draft's file atomically and makes the change take effect: `appliedLive` keys at once in the loaded " +
				"sessions it reaches, `newSessions` keys in sessions created from now on, `restartRequired` keys after a " +
				"restart. Refused, with nothing written, when the draft has problems, its project is no longer trusted, or " +
				"the file changed since the draft was opened. Emits `settings_changed`.",
			params: Type.Object({ draftId: DraftId }, { additionalProperties: false }),
			result: ApplyResultSchema,
			handler: async ({ draftId }, context) => {
				const result = await context.service(settings).apply(draftId, context.runtime);
				announce(context, { scope: result.scope, path: result.path, keys: result.keys });
				return result;
			},
		}),
		defineCommand({
			name: "settings_cancel",
			summary: "Drops a draft; nothing is written.",
			params: Type.Object({ draftId: DraftId }, { additionalProperties: false }),
			result: NoResult,
			handler: ({ draftId }, context) => context.service(settings).cancel(draftId),
		}),
		defineCommand({
			name: "project_trust",
			summary:
				"Trusts the addressed session's project (its working directory), so its `.skiff/settings.json` counts, or stops " +
				"trusting it. Recorded in `<agent-dir>/trust.json`; opening a session never trusts a project. What it changes " +
				"takes effect like settings_apply; emits `settings_changed`.",
			params: Type.Object({ trusted: Type.Boolean() }, { additionalProperties: false }),
			result: TrustResultSchema,
			handler: async ({ trusted }, context) => {
				const result = await context.service(settings).setTrust((await context.session()).handle.cwd, trusted, context.runtime);
				announce(context, { scope: "project", path: result.projectPath, keys: result.keys });
				return result;
			},
		}),
	];
}
