/** Control-plane commands of the memory subsystem (for settings panels, the memory inspector and scripts). */
import { Type } from "typebox";
import type { LoadedSession } from "../../agent/runtime-manager.js";
import { defineCommand, NoFields } from "../../protocol/command.js";
import type { DoctorCheck } from "../../protocol/commands/doctor.js";
import { REDACTED } from "../../shared/redact.js";
import { redactKept } from "../../shared/redact-kept.js";
import { MAX_ENTRIES, type MemoryEntry } from "./local-store.js";
import type { ServiceKey } from "../../protocol/service-key.js";
import type { MemoryService } from "./memory-service.js";
import { BACKENDS, MemorySettingsSchema, SCOPINGS } from "./settings.js";

/** Longest content an inspector row shows; the rest is cut (`truncated`). */
export const MAX_INSPECTED_CHARS = 4000;
/** Longest search query of the inspector. */
export const MAX_INSPECTOR_QUERY_CHARS = 1000;

const NamespaceSchema = Type.Enum(["project", "persona"], { description: "The project's store, or the persona's (persona sessions)." });

const MemoryEntryViewSchema = Type.Object(
	{
		id: Type.String(),
		content: Type.String({ description: "Secrets redacted; cut to 4,000 characters." }),
		truncated: Type.Boolean({ description: "The content was cut." }),
		tags: Type.Array(Type.String()),
		created: Type.String({ description: "ISO 8601 (the epoch for entries without a time)." }),
		session: Type.String({ description: "The session that learned it." }),
	},
	{ title: "MemoryEntryView" },
);

function entryView(entry: MemoryEntry) {
	// Up to twice as many UTF-16 units as characters shown: then cut on a character boundary.
	const content = redactKept(entry.content, MAX_INSPECTED_CHARS * 2);
	const cut = [...content.text].slice(0, MAX_INSPECTED_CHARS).join("");
	return {
		id: entry.id,
		content: cut,
		truncated: content.cut || cut.length < content.text.length,
		tags: entry.tags,
		created: new Date(entry.ts).toISOString(),
		session: entry.session,
	};
}

/** The doctor's memory check: the backend of the addressed session works (memory_status). */
export function memoryDoctorCheck(memory: MemoryService): (session: LoadedSession) => Promise<DoctorCheck> {
	return async (session) => {
		const status = await memory.status(session.id, session.handle.cwd);
		// One verdict: the title names the subject, the detail says what was found ("Memory is off" was said twice).
		const title = "Memory";
		if (status.backend === "off") return { id: "memory", ok: true, title, detail: "Off (memory.backend): the agent has no memory tools." };
		if (status.healthy) return { id: "memory", ok: true, title, detail: status.detail };
		const fix =
			status.backend === "remote"
				? "Check memory.remoteApiUrl and memory.remoteApiToken in settings.json and that the memory server runs, or switch to local memory (memory_set_backend)."
				: `Check the permissions of ${status.local.path} and its folder.`;
		return { id: "memory", ok: false, title, detail: status.detail, fix };
	};
}

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

export function memoryCommands(memoryKey: ServiceKey<MemoryService>) {
	return [
		defineCommand({
			name: "memory_entries",
			summary:
				"The addressed session's local memory entries (its project's store, or its persona's), newest first, or with " +
				"`query` those matching it, best first (as the `memory` tool's recall ranks them). Whatever the backend: this " +
				"is what is stored on this machine. Contents are redacted and cut to 4,000 characters.",
			params: Type.Object(
				{
					query: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_INSPECTOR_QUERY_CHARS, description: "Search words (content and tags)." })),
					limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ENTRIES, description: `At most this many entries (default ${MAX_ENTRIES}).` })),
				},
				{ additionalProperties: false },
			),
			result: Type.Object({
				namespace: NamespaceSchema,
				path: Type.String({ description: "The store's file." }),
				backend: Type.Enum(BACKENDS, { description: "The session's memory backend now." }),
				total: Type.Integer({ description: "Entries in the store." }),
				unreadable: Type.Integer({ description: "Lines of the file that are not entries (kept as they are)." }),
				entries: Type.Array(MemoryEntryViewSchema),
			}),
			handler: async ({ query, limit }, context) => {
				const session = await context.session();
				const memory = context.service(memoryKey);
				const { namespace, store } = memory.localStore(session.id, session.handle.cwd);
				const file = await store.read();
				const wanted = limit ?? MAX_ENTRIES;
				const entries = query === undefined ? (await store.list()).slice(0, wanted) : await store.search(query, wanted);
				return {
					namespace,
					path: store.path,
					backend: memory.binding(session.id).settings.backend,
					total: file.entries.length,
					unreadable: file.unreadable.length,
					entries: entries.map(entryView),
				};
			},
		}),
		defineCommand({
			name: "memory_forget",
			summary:
				"Removes entries from the addressed session's local memory store by id (see memory_entries), in one write. " +
				"Ids not in the store are listed as `missing`; nothing else changes.",
			params: Type.Object(
				{ ids: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: MAX_ENTRIES, description: "Entry ids." }) },
				{ additionalProperties: false },
			),
			result: Type.Object({ forgotten: Type.Array(Type.String()), missing: Type.Array(Type.String()) }),
			handler: async ({ ids }, context) => {
				const session = await context.session();
				return context.service(memoryKey).localStore(session.id, session.handle.cwd).store.forgetMany(ids);
			},
		}),
		defineCommand({
			name: "memory_status",
			summary:
				"How the addressed session's memory is doing: its backend, whether it works, its local store, and for the " +
				"remote backend the server's answer to one cheap read-only request (the bank's profile): reachable, bank id, " +
				"scoping and tags, whether the bank exists yet. The token shows only as a redaction marker.",
			params: NoFields,
			result: Type.Object({
				backend: Type.Enum(BACKENDS),
				healthy: Type.Boolean(),
				detail: Type.String({ description: "What was found, in a sentence (secrets redacted)." }),
				local: Type.Object({
					namespace: NamespaceSchema,
					path: Type.String(),
					entries: Type.Integer(),
					unreadable: Type.Integer(),
					error: Type.Optional(Type.String({ description: "Why the store could not be read." })),
				}),
				remote: Type.Optional(
					Type.Object({
						url: Type.String(),
						bank: Type.String({ description: "The bank this session's memory goes to (prefix and scoping applied)." }),
						scoping: Type.Enum(SCOPINGS),
						tags: Type.Optional(Type.Array(Type.String(), { description: "The project tags of `per-project-tagged` scoping." })),
						remoteApiToken: Type.Optional(Type.Literal(REDACTED, { description: "Set (shown only as the redaction marker) or absent." })),
						reachable: Type.Boolean({ description: "The server answered (even if it refused the token)." }),
						bankExists: Type.Optional(Type.Boolean({ description: "The bank exists (it is created on the first write)." })),
					}),
				),
			}),
			handler: async (_params, context) => {
				const session = await context.session();
				return context.service(memoryKey).status(session.id, session.handle.cwd);
			},
		}),
		defineCommand({
			name: "memory_get_settings",
			summary: "The memory configuration a session uses. The remote token is always shown as a redaction marker.",
			params: NoFields,
			result: MemoryViewSchema,
			handler: async (_params, context) => {
				const memory = context.service(memoryKey);
				return memory.view(memory.binding((await context.session()).id));
			},
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
				const memory = context.service(memoryKey);
				const binding = memory.binding((await context.session()).id);
				memory.setBackend(binding, backend);
				return memory.view(binding);
			},
		}),
	];
}
