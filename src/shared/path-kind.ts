/**
 * What a path is on disk, as a yes or no for the checks that guard reads and writes: a path that cannot be
 * examined (missing, unreadable) is neither, never an error.
 */
import { lstatSync, statSync } from "node:fs";

/** A directory, or a symbolic link to one. */
export function isDirectory(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}

/** A symbolic link itself (not followed), whatever it points to. */
export function isSymbolicLink(path: string): boolean {
	try {
		return lstatSync(path).isSymbolicLink();
	} catch {
		return false;
	}
}
