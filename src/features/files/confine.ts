/**
 * Keeping `files_list` and `files_read` inside the session's working directory (its root). A path from a client
 * is relative to the root, with `/` between its parts; it is refused before anything on disk is looked at when
 * it could only mean something else: a NUL byte (the system would cut the path there), an absolute path, a
 * backslash (a separator elsewhere: `..\..\etc` would read differently on another system, so it is refused
 * rather than taken as a name), a `..` part, or a part of git's own folder (`.git`: its config can hold a
 * remote's credentials, and it is git's, not the project's).
 *
 * Then the path is resolved with every symbolic link in it followed (`realpath`: the target and each parent
 * folder) and must still lie inside the root's real path: a link that stays inside the root is followed, one
 * that leaves it (itself, through a chain of links, or through a linked parent folder) is refused. What is then
 * read is checked again once open (see read.ts and listing.ts), so a link swapped in between the check and the
 * open is caught too.
 */
import { realpath } from "node:fs/promises";
import { sep } from "node:path";
import { CodedError } from "../../shared/errors.js";
import { MAX_PATH_CHARS } from "./schemas.js";

/** Git's own folder: listed, never entered or read. */
export const GIT_DIR = ".git";

/** A path as the client gave it, for messages: quoted, and cut when long. */
export function shown(path: string): string {
	const quoted = JSON.stringify(path);
	return quoted.length > 200 ? `${quoted.slice(0, 199)}…"` : quoted;
}

/**
 * The parts of a client's path (none for the root itself: "", "." or "/"-free spellings of it), or a refusal:
 * `invalid_command` for a malformed path, `forbidden` for one that would leave the root or enter `.git`.
 */
export function pathParts(path: string): string[] {
	if (path.includes("\0")) throw new CodedError("invalid_command", `Invalid command: \`path\` ${shown(path)} holds a NUL byte`);
	if (path.length > MAX_PATH_CHARS) throw new CodedError("invalid_command", `Invalid command: \`path\` is longer than ${MAX_PATH_CHARS} characters`);
	if (path.startsWith("/")) throw new CodedError("forbidden", `${shown(path)} is an absolute path: paths are relative to the session's working directory`);
	if (path.includes("\\")) throw new CodedError("invalid_command", `Invalid command: \`path\` ${shown(path)} holds a backslash, a folder separator on some systems: separate folders with "/" (a name that holds a backslash cannot be read here)`);
	const parts = path.split("/").filter((part) => part !== "" && part !== ".");
	if (parts.includes("..")) throw new CodedError("forbidden", `${shown(path)} goes up with "..": only paths inside the session's working directory can be read`);
	if (parts.includes(GIT_DIR)) throw new CodedError("forbidden", `${shown(path)} is inside git's own folder (.git), which is not shown`);
	return parts;
}

/** Whether `real` is `root` or lies under it (both real paths). */
export function isInside(root: string, real: string): boolean {
	return real === root || real.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** A path the checks let through: where it really is, and how the client names it (relative, POSIX). */
export interface ConfinedPath {
	/** The root's real path. */
	readonly root: string;
	/** The path with every link resolved: inside `root`. */
	readonly real: string;
	/** The client's path, normalised: parts joined with "/", "" for the root. */
	readonly relative: string;
}

/** The error for a file-system failure on `path` (ENOENT and the like), with a code a client can act on. */
export function fileError(error: unknown, path: string): CodedError {
	const code = (error as NodeJS.ErrnoException)?.code;
	if (error instanceof CodedError) return error;
	if (code === "ENOENT") {
		// A listing shows a name that is not UTF-8 on disk with U+FFFD, a spelling that names no file.
		const why = path.includes("\ufffd") ? " (a name listed with U+FFFD is not UTF-8 on disk, and that spelling cannot open it)" : "";
		return new CodedError("not_found", `${shown(path)} does not exist in the session's working directory${why}`);
	}
	if (code === "ENOTDIR") return new CodedError("not_found", `${shown(path)} does not exist: a part of it is not a folder`);
	if (code === "EACCES" || code === "EPERM") return new CodedError("forbidden", `${shown(path)} cannot be read: permission denied`);
	if (code === "ELOOP") return new CodedError("forbidden", `${shown(path)} is a loop of symbolic links`);
	if (code === "ENAMETOOLONG") return new CodedError("invalid_command", `Invalid command: \`path\` ${shown(path)} is too long for the file system`);
	return new CodedError("io_error", `${shown(path)} could not be read: ${(error as Error)?.message ?? String(error)}`);
}

/**
 * Resolves the client's `path` under the session's working directory `cwd`: refused (see {@link pathParts}) when
 * malformed, missing (`not_found`), or when it, a link in it or a parent folder leads outside the root or into a
 * `.git` folder (`forbidden`, naming the path and why).
 */
export async function confine(cwd: string, path: string): Promise<ConfinedPath> {
	const parts = pathParts(path);
	const relative = parts.join("/");
	let root: string;
	try {
		root = await realpath(cwd);
	} catch (error) {
		throw new CodedError("not_found", `The session's working directory cannot be read: ${(error as Error).message}`);
	}
	let real: string;
	try {
		real = await realpath(parts.length ? `${root}${sep}${parts.join(sep)}` : root);
	} catch (error) {
		throw fileError(error, relative);
	}
	checkInside(root, real, relative);
	return { root, real, relative };
}

/** Refuses a real path outside `root`, or inside a `.git` folder under it (reached through a link). */
export function checkInside(root: string, real: string, relative: string): void {
	if (!isInside(root, real)) {
		throw new CodedError("forbidden", `${shown(relative)} leads outside the session's working directory through a symbolic link`);
	}
	if (real.slice(root.length).split(sep).includes(GIT_DIR)) {
		throw new CodedError("forbidden", `${shown(relative)} leads into git's own folder (.git) through a symbolic link, which is not shown`);
	}
}
