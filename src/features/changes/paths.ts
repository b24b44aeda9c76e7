/**
 * The paths a client names (a file to diff or revert) are relative to the session's working directory and
 * stay inside it: no absolute path, no `..`, no NUL, and no parent folder that is a symbolic link leading out
 * (a revert writes and moves files, so it must never reach past the root).
 */
import { realpath } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { CodedError } from "../../shared/errors.js";
import { MAX_PATH_CHARS } from "./schemas.js";

/** Checks the shape of a client's path and answers it normalized (`/`-separated, no `.` segments). */
export function checkRelativePath(path: string): string {
	if (path.length === 0 || path.length > MAX_PATH_CHARS) throw new CodedError("invalid_command", `A path must have 1 to ${MAX_PATH_CHARS} characters`);
	if (path.includes("\0")) throw new CodedError("invalid_command", "A path must not contain a NUL character");
	// No "~" expansion: a path is a name under the root, and "~" a name like another (a folder made by a quoted
	// `mkdir "~/x"`, an editor's "~file"), which changes_get lists and which must be diffed and reverted too.
	if (isAbsolute(path)) throw new CodedError("forbidden", `${JSON.stringify(path)} is absolute: paths are relative to the session's working directory`);
	const segments = path.split("/").filter((segment) => segment !== "" && segment !== ".");
	if (segments.includes("..")) throw new CodedError("forbidden", `${JSON.stringify(path)} leaves the session's working directory (..)`);
	if (segments.length === 0) throw new CodedError("invalid_command", `${JSON.stringify(path)} names no file`);
	return segments.join("/");
}

/**
 * The file a tool call's `path` names (pi's tools take `@`-prefixed, `~/` and relative paths), when it lies
 * inside the working directory: its absolute path and its path relative to the root (`/`-separated).
 */
export function toolCallPath(cwd: string, input: Readonly<Record<string, unknown>>): { absolute: string; path: string } | undefined {
	if (typeof input.path !== "string") return undefined;
	const raw = input.path.replace(/^@/, "");
	const absolute = resolve(cwd, raw.startsWith("~/") ? raw.replace(/^~/, process.env.HOME ?? "~") : raw);
	if (!isInside(cwd, absolute) || absolute === cwd) return undefined;
	return { absolute, path: absolute.slice(cwd.length + 1).split("\\").join("/") };
}

/**
 * Whether the file `rel` (a tool call's, see toolCallPath) really lies inside `root`: its folder, links resolved,
 * is inside the root's real path. A path inside by its spelling may lead out through a linked folder, where the
 * changes feature never reads a file's content, nor lists or keeps it as a change.
 */
export function leadsInside(root: string, rel: string): Promise<boolean> {
	return confinedPath(root, rel).then(
		() => true,
		() => false,
	);
}

/** Whether `path` is `root` or inside it (both absolute and normalized). */
export function isInside(root: string, path: string): boolean {
	const rel = relative(root, path);
	return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * The absolute path of `rel` under `root`, once its folder, with every symbolic link resolved, is still inside
 * the root's real path. The entry itself may be a link (it is moved or replaced as a link, never followed).
 * A folder that does not exist (a deleted file's) is checked from its nearest existing parent.
 */
export async function confinedPath(root: string, rel: string): Promise<string> {
	const full = resolve(root, rel);
	const realRoot = await realpath(root);
	let folder = dirname(full);
	for (;;) {
		try {
			const real = await realpath(folder);
			if (!isInside(realRoot, real)) throw new CodedError("forbidden", `${JSON.stringify(rel)} is reached through a symbolic link that leaves the session's working directory`);
			return full;
		} catch (error) {
			if (error instanceof CodedError) throw error;
			const code = (error as NodeJS.ErrnoException).code;
			if (code !== "ENOENT" && code !== "ENOTDIR") throw new CodedError("io_error", `${JSON.stringify(rel)} could not be examined (${code ?? "error"})`);
			const parent = dirname(folder);
			if (parent === folder || !isInside(root, parent)) return full;
			folder = parent;
		}
	}
}
