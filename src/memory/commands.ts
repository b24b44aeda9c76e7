/** Control-plane commands of the memory subsystem (for settings panels and scripts). */
import { Type } from "typebox";
import { defineCommand, NoFields } from "../protocol/command.js";
import { REDACTED } from "../shared/redact.js";
import type { MemoryService } from "./memory-service.js";
import { BACKENDS } from "./settings.js";

const SETTINGS_RESULT =
	`the session's memory settings \`{backend, remoteApiUrl?, remoteApiToken?: ${JSON.stringify(REDACTED)}, …, activeTools, shared}\` ` +
	"(`shared`: the session uses the live defaults rather than its own copy)";

export function memoryCommands(memory: MemoryService) {
	return [
		defineCommand({
			name: "memory_get_settings",
			summary: "The memory configuration a session uses. The remote token is always shown as a redaction marker.",
			params: NoFields,
			result: SETTINGS_RESULT,
			handler: async (_params, context) => memory.view(memory.binding((await context.session()).id)),
		}),
		defineCommand({
			name: "memory_set_backend",
			summary:
				"Switches the memory backend (`local`, `remote` or `off`) from the next turn on, for the addressed session's " +
				"configuration: the live defaults (every top-level session, and future ones) or a child's own copy. Not " +
				"written to settings.json; nothing is migrated or deleted.",
			params: Type.Object({ backend: Type.Union(BACKENDS.map((b) => Type.Literal(b))) }, { additionalProperties: false }),
			result: SETTINGS_RESULT,
			handler: async ({ backend }, context) => {
				const binding = memory.binding((await context.session()).id);
				memory.setBackend(binding, backend);
				return memory.view(binding);
			},
		}),
	];
}
