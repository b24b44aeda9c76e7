/** Control-plane commands of the memory subsystem (for settings panels and scripts). */
import { Type } from "typebox";
import { defineCommand, NoFields } from "../protocol/command.js";
import { REDACTED } from "../shared/redact.js";
import type { MemoryService } from "./memory-service.js";
import { BACKENDS, MemorySettingsSchema } from "./settings.js";

/** The memory configuration of a session as clients see it: every setting, secrets as the redaction marker. */
export const MemoryViewSchema = Type.Object(
	{
		...MemorySettingsSchema.properties,
		remoteApiToken: Type.Optional(Type.Literal(REDACTED, { description: "Set (shown only as the redaction marker) or absent." })),
		activeTools: Type.Array(Type.String(), { description: "The memory tools the agent has now." }),
		shared: Type.Boolean({
			description: "The session uses a shared live configuration (the defaults, or its trusted project's) rather than its own copy (children have their own).",
		}),
	},
	{ title: "MemoryView" },
);

export function memoryCommands(memory: MemoryService) {
	return [
		defineCommand({
			name: "memory_get_settings",
			summary: "The memory configuration a session uses. The remote token is always shown as a redaction marker.",
			params: NoFields,
			result: MemoryViewSchema,
			handler: async (_params, context) => memory.view(memory.binding((await context.session()).id)),
		}),
		defineCommand({
			name: "memory_set_backend",
			summary:
				"Switches the memory backend (`local`, `remote` or `off`) from the next turn on, for the addressed session's " +
				"configuration: the shared live one (every top-level session of its project, or everywhere, and future ones) " +
				"or a child's own copy. A run-time switch: not written to settings.json (settings_apply with `memory.backend` " +
				"persists it); nothing is migrated or deleted.",
			params: Type.Object({ backend: Type.Enum(BACKENDS) }, { additionalProperties: false }),
			result: MemoryViewSchema,
			handler: async ({ backend }, context) => {
				const binding = memory.binding((await context.session()).id);
				memory.setBackend(binding, backend);
				return memory.view(binding);
			},
		}),
	];
}
