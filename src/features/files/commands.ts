/** The project files' commands: the Files panel browses and previews the session's working directory, read-only. */
import { defineCommand } from "../../protocol/command.js";
import { listFiles } from "./listing.js";
import { readFile } from "./read.js";
import { FilesListParamsSchema, FilesListResultSchema, FilesReadParamsSchema, FilesReadResultSchema } from "./schemas.js";

const CONFINED =
	"Paths are relative to the addressed session's working directory, with `/` between folders; `..`, absolute paths, NUL bytes, " +
	"backslashes, `.git`, and symbolic links that lead outside the working directory are refused (`forbidden`, `invalid_command`), " +
	"a missing path is `not_found`. Nothing is ever written.";

export const filesCommands = [
	defineCommand({
		name: "files_list",
		summary:
			"One folder level of the session's working directory, a page at a time (folders first, then by name): each entry's name, path, " +
			"kind, size and whether git ignores it. `.git` is listed but never entered. " +
			CONFINED,
		params: FilesListParamsSchema,
		result: FilesListResultSchema,
		handler: async (params, context) => listFiles((await context.session()).handle.cwd, params),
	}),
	defineCommand({
		name: "files_read",
		summary:
			"One file of the session's working directory: text (the first 1 MiB, UTF-8, with its language; secrets masked), an image " +
			"(PNG, JPEG, GIF or WebP up to 5 MiB, base64; SVG comes as text), or \"binary, N bytes\". FIFOs and devices are refused. " +
			CONFINED,
		params: FilesReadParamsSchema,
		result: FilesReadResultSchema,
		handler: async ({ path }, context) => readFile((await context.session()).handle.cwd, path),
	}),
];
