/**
 * A revert in a git repository: one listed file put back as the base has it (git-changes.ts lists it), or
 * refused saying why when that would do something else than the user saw: write over a file the listing did
 * not name, remove what stands in the way, claim a move that did not happen.
 */
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { git } from "../git.js";
import { LITERAL, SPECIAL_NOTES, type SpecialFile } from "./git-changes.js";
import type { ChangedFile } from "./schemas.js";
import type { Trash } from "./trash.js";

/**
 * Puts one file back as the base has it: a file the base has is restored (index and working tree) from it;
 * one it does not have (new, untracked) goes to the trash and out of the index; a rename does both.
 * `absolute`/`oldAbsolute` were checked to be inside the working directory.
 */
export async function revertGitFile(
	cwd: string,
	baseRef: string,
	file: ChangedFile,
	absolute: string,
	trash: Trash,
	special?: SpecialFile,
): Promise<{ outcome: "restored" | "trashed" | "refused"; trashedTo?: string; reason?: string }> {
	const restore = (path: string) => git(cwd, [...LITERAL, "restore", `--source=${baseRef}`, "--staged", "--worktree", "--", path]);
	const unstage = (path: string) => git(cwd, [...LITERAL, "rm", "--cached", "-q", "--ignore-unmatch", "--", path]);
	/** Where the file went, or undefined when it is gone already (removed since it was listed). */
	const toTrash = async (): Promise<string | undefined> => {
		try {
			return await trash.put(absolute, file.path);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
			throw error;
		}
	};
	const gone = { outcome: "refused" as const, reason: "it is not in the working directory any more (removed since it was listed): nothing was done" };
	/** A restore of `path` refused when git would remove something of the working tree's to make room for it. */
	const blocked = async (path: string) => {
		const why = await inTheWay(cwd, path);
		return why ? { outcome: "refused" as const, reason: `${why}, which the revert would remove: revert or move that first` } : undefined;
	};
	if (special === "undecodable-name" || special === "submodule") return { outcome: "refused", reason: SPECIAL_NOTES[special] };
	switch (file.status) {
		case "untracked": {
			const trashedTo = await toTrash();
			return trashedTo === undefined ? gone : { outcome: "trashed", trashedTo };
		}
		case "added": {
			const trashedTo = await toTrash();
			if (trashedTo === undefined) return gone;
			await unstage(file.path);
			return { outcome: "trashed", trashedTo };
		}
		case "renamed": {
			// The restore would write over whatever holds the old name now (a new file, untracked): never without a copy.
			if (await lstat(join(cwd, file.oldPath!)).then(() => true, () => false)) {
				return {
					outcome: "refused",
					reason: `its old name ${JSON.stringify(file.oldPath)} holds another file now, which the revert would overwrite: revert or move that one first`,
				};
			}
			const refused = await blocked(file.oldPath!);
			if (refused) return refused;
			await restore(file.oldPath!);
			const trashedTo = await toTrash();
			await unstage(file.path);
			return { outcome: "restored", ...(trashedTo !== undefined ? { trashedTo } : {}) };
		}
		default: {
			const refused = await blocked(file.path);
			if (refused) return refused;
			await restore(file.path);
			return { outcome: "restored" };
		}
	}
}

/**
 * What stands in the way of writing the base's file at `path` (relative to `cwd`), which git would remove
 * without a copy: a folder where the file goes (with whatever is in it), or a file (or link) where one of
 * its folders goes. Undefined when the way is clear.
 */
async function inTheWay(cwd: string, path: string): Promise<string | undefined> {
	const parts = path.split("/");
	for (let end = 1; end <= parts.length; end++) {
		const prefix = parts.slice(0, end).join("/");
		const stats = await lstat(join(cwd, prefix)).catch(() => undefined);
		if (!stats) return undefined; // missing from here down: git makes the folders
		if (end === parts.length) return stats.isDirectory() ? `a folder stands where the base has the file ${JSON.stringify(path)}` : undefined;
		if (!stats.isDirectory()) return `${JSON.stringify(prefix)} is ${stats.isSymbolicLink() ? "a symbolic link" : "a file"} now where the base has a folder`;
	}
	return undefined;
}
