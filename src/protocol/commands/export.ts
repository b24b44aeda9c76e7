/**
 * Exporting a session as a standalone HTML page (pi's `export_html`). pi writes wherever it is told; a
 * listener's clients may be on other machines, so over /ws and /rpc the page may only be written inside the
 * session's working directory, as an `.html` file that is not a symbolic link. In `--mode rpc` the client is
 * the operator's own process (as trusted as the command line) and any path is accepted, as in pi.
 */
import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { Type } from "typebox";
import { downloadName } from "../../shared/download-name.js";
import { CodedError } from "../../shared/errors.js";
import { isDirectory, isSymbolicLink } from "../../shared/path-kind.js";
import { defineCommand } from "../command.js";

/** Names an export may have over /ws and /rpc. */
const HTML_NAME = /\.html?$/i;

export const exportHtml = defineCommand({
	name: "export_html",
	summary:
		"Writes the session as a standalone HTML page (its content policy in the page, its secrets redacted, as " +
		"the downloads: docs/security.md) and answers with its absolute path. `outputPath` is taken " +
		"from the session's cwd (default `<session name>.html` there, or `skiff-session-<session file name>.html` for an unnamed session). Over /ws and /rpc it must " +
		"name an `.html` file inside the session's cwd (else `forbidden`); in `--mode rpc` any path is accepted.",
	params: Type.Object(
		{ outputPath: Type.Optional(Type.String({ minLength: 1, description: "Where to write the page (relative: to the session's cwd)." })) },
		{ additionalProperties: false },
	),
	result: Type.Object({ path: Type.String({ description: "The absolute path written." }) }),
	handler: async ({ outputPath }, context) => {
		const { handle } = await context.session();
		const name = downloadName(handle.state().sessionName, handle.sessionId, "html");
		const defaultName = name.named ? name.fileName : `skiff-session-${basename(handle.sessionFile ?? handle.sessionId, ".jsonl")}.html`;
		const target = exportTarget(handle.cwd, outputPath ?? defaultName, context.client.transport === "stdio");
		return { path: await handle.exportHtml(target) };
	},
});

/** The absolute path to write `outputPath` to, or an error saying why it may not be written. */
export function exportTarget(cwd: string, outputPath: string, anywhere: boolean): string {
	const target = resolve(cwd, outputPath);
	const folder = dirname(target);
	if (!isDirectory(folder)) throw new CodedError("not_found", `Cannot export to ${target}: the folder ${folder} does not exist`);
	if (anywhere) return target;
	if (!HTML_NAME.test(target)) throw new CodedError("invalid_command", `Invalid command: \`outputPath\` must name an .html file (got ${outputPath})`);
	if (!inside(realpathSync(folder), realpathSync(cwd))) {
		throw new CodedError("forbidden", `Cannot export to ${target}: over the listener an export stays inside the session's cwd ${cwd}`);
	}
	if (isSymbolicLink(target)) throw new CodedError("forbidden", `Cannot export to ${target}: it is a symbolic link`);
	return target;
}

function inside(path: string, root: string): boolean {
	const rel = relative(root, path);
	return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

export const exportCommands = [exportHtml];
