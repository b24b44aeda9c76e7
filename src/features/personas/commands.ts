/**
 * The personas' commands. Listing and reading resolve names from the addressed session's working directory
 * (a trusted project's personas first); creating writes to the user scope; running spawns a job of the
 * addressed session whose agent is the persona.
 */
import { Type } from "typebox";
import { defineCommand, NoFields } from "../../protocol/command.js";
import { type JobService, JobSchema, MAX_TASK_CHARS } from "../jobs/index.js";
import { MAX_PERSONA_BYTES, type PersonaStore } from "./persona-store.js";
import type { ServiceKey } from "../../protocol/service-key.js";
import { PersonaRowSchema } from "./schemas.js";

const NameSchema = Type.String({ minLength: 1, maxLength: 200, description: "The persona's name: 1 to 64 letters, digits, _ or -." });
const ContentSchema = Type.String({ maxLength: MAX_PERSONA_BYTES, description: "The whole persona.md: frontmatter and system prompt." });
const ConfirmSchema = Type.Literal(true, { description: "Must be true: this deletes files." });

export function personaCommands(personas: ServiceKey<PersonaStore>, jobs: ServiceKey<JobService>) {
	const cwdOf = async (context: { session(): Promise<{ handle: { cwd: string } }> }) => (await context.session()).handle.cwd;
	return [
		defineCommand({
			name: "persona_list",
			summary: "The personas visible from the session's folder (a trusted project's first, then the user's), with memory entry and session counts. No paths.",
			params: NoFields,
			result: Type.Object({ personas: Type.Array(PersonaRowSchema) }),
			handler: async (_params, context) => ({ personas: await context.service(personas).list(await cwdOf(context)) }),
		}),
		defineCommand({
			name: "persona_get",
			summary: "One persona's row and its persona.md text (empty when removed).",
			params: Type.Object({ name: NameSchema }, { additionalProperties: false }),
			result: Type.Object({ ...PersonaRowSchema.properties, content: Type.String({ description: "persona.md as it is on disk." }) }),
			handler: async ({ name }, context) => context.service(personas).get(name, await cwdOf(context)),
		}),
		defineCommand({
			name: "persona_create",
			summary:
				"Creates a persona in the user scope (`<agent-dir>/personas/<name>/persona.md`) from `content`, or from the " +
				"template without it. The frontmatter's name must be the persona's; a bad definition creates nothing.",
			params: Type.Object({ name: NameSchema, content: Type.Optional(ContentSchema) }, { additionalProperties: false }),
			result: PersonaRowSchema,
			handler: async ({ name, content }, context) => context.service(personas).create(name, content, await cwdOf(context)),
		}),
		defineCommand({
			name: "persona_edit",
			summary: "Replaces a persona's persona.md (validated first; its name cannot change).",
			params: Type.Object({ name: NameSchema, content: ContentSchema }, { additionalProperties: false }),
			result: PersonaRowSchema,
			handler: async ({ name, content }, context) => context.service(personas).edit(name, content, await cwdOf(context)),
		}),
		defineCommand({
			name: "persona_remove",
			summary: "Deletes a persona's definition (persona.md) only: its memory and archived sessions stay.",
			params: Type.Object({ name: NameSchema, confirm: ConfirmSchema }, { additionalProperties: false }),
			result: Type.Object({ name: Type.String(), removed: Type.Literal("definition") }),
			handler: async ({ name }, context) => {
				await context.service(personas).remove(name, await cwdOf(context));
				return { name, removed: "definition" as const };
			},
		}),
		defineCommand({
			name: "persona_purge",
			summary: "Deletes a persona's whole folder: definition, memory and archived sessions.",
			params: Type.Object({ name: NameSchema, confirm: ConfirmSchema }, { additionalProperties: false }),
			result: Type.Object({ name: Type.String(), removed: Type.Literal("root") }),
			handler: async ({ name }, context) => {
				await context.service(personas).purge(name, await cwdOf(context));
				return { name, removed: "root" as const };
			},
		}),
		defineCommand({
			name: "persona_run",
			summary:
				"Runs a persona on a task: a job of the session whose agent is the persona, with its own memory and its " +
				"newest archived runs as continuity (see job_updated).",
			params: Type.Object(
				{ name: NameSchema, task: Type.String({ minLength: 1, maxLength: MAX_TASK_CHARS }) },
				{ additionalProperties: false },
			),
			result: Type.Object({ job: JobSchema }),
			handler: async ({ name, task }, context) => {
				const session = await context.session();
				if (!context.service(personas).resolve(name, session.handle.cwd)) await context.service(personas).get(name, session.handle.cwd); // throws the clear error
				const [job] = await context.service(jobs).spawn(session.id, { task, agent: name });
				return { job: job! };
			},
		}),
	];
}
