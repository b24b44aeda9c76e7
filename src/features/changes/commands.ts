/** The changes commands: what the working directory's files changed, one file's diff, and a revert. */
import { Type } from "typebox";
import { defineCommand } from "../../protocol/command.js";
import type { ServiceKey } from "../../protocol/service-key.js";
import { ChangesListSchema, FileDiffSchema, MAX_PATH_CHARS, MAX_REVERT_PATHS, RevertedFileSchema, SinceSchema } from "./schemas.js";
import type { ChangesService } from "./service.js";

const PathSchema = Type.String({ minLength: 1, maxLength: MAX_PATH_CHARS, description: "Relative to the session's working directory, `/`-separated." });

export function changesCommands(changes: ServiceKey<ChangesService>) {
	return [
		defineCommand({
			name: "changes_get",
			summary:
				"The files changed in the addressed session's working directory, against its base (git: HEAD, or the session's " +
				"start with `since`; outside git: what the session's edit and write calls found): path, status, lines added and " +
				"removed, binary or not, and a token to give back to changes_revert. Says which base is shown.",
			params: Type.Object({ since: SinceSchema }, { additionalProperties: false }),
			result: ChangesListSchema,
			handler: async ({ since }, context) => {
				const session = await context.session();
				const service = context.service(changes);
				return service.list(session.id, session.handle.cwd, since ?? "head");
			},
		}),
		defineCommand({
			name: "changes_diff",
			summary:
				"One changed file's unified diff against the base (an untracked or new file against nothing; a binary file says " +
				"so), cut at 512 KiB. `not_found` when the file is not among the changes.",
			params: Type.Object({ path: PathSchema, since: SinceSchema }, { additionalProperties: false }),
			result: FileDiffSchema,
			handler: async ({ path, since }, context) => {
				const session = await context.session();
				return context.service(changes).diff(session.id, session.handle.cwd, path, since ?? "head");
			},
		}),
		defineCommand({
			name: "changes_revert",
			summary:
				"Puts files back as the base has them (`confirm: true` is required). A file the base does not have (new, " +
				"untracked) is moved to `<agent-dir>/changes-trash/`, never deleted. Each path needs the token changes_get " +
				"answered for it: a file changed since is refused (\"changed since you looked\"), as is a path outside the " +
				"working directory or not among the changes. Answers what was done to each path; emits `changes_updated`.",
			params: Type.Object(
				{
					paths: Type.Array(PathSchema, { minItems: 1, maxItems: MAX_REVERT_PATHS }),
					tokens: Type.Record(Type.String(), Type.String({ maxLength: 200 }), {
						description: "For each path, the `token` changes_get answered with it.",
					}),
					confirm: Type.Literal(true, { description: "Must be true: a revert discards the working tree's changes of these files." }),
					since: SinceSchema,
				},
				{ additionalProperties: false },
			),
			result: Type.Object({ files: Type.Array(RevertedFileSchema) }),
			handler: async ({ paths, tokens, since }, context) => {
				const session = await context.session();
				return { files: await context.service(changes).revert(session.id, session.handle.cwd, paths, tokens, since ?? "head") };
			},
		}),
	];
}
