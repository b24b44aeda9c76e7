/**
 * Reading git's machine output for the changes feature: `git diff --raw --numstat -z` (every path NUL-ended,
 * so spaces, tabs, newlines and quotes in names arrive as they are) and `git ls-files -z`. Pure functions, so
 * the parsing is tested apart from git.
 */

/** How a path differs from the base, in git's raw letters (A, M, D, R, C, T, U) read into words. */
export type GitStatus = "added" | "modified" | "deleted" | "renamed";

export interface GitChange {
	/** The path now (for a rename, the new one), relative to where git ran (`--relative`). */
	path: string;
	/** A rename's (or copy's) old path. */
	oldPath?: string;
	status: GitStatus;
	/** Lines added and removed; 0 for a binary file. */
	added: number;
	removed: number;
	binary: boolean;
	/** An unmerged path (a merge, rebase or cherry-pick stopped on it). */
	conflicted: boolean;
	/** A submodule (git's mode 160000 on either side): what changed is the commit it points at. Absent otherwise. */
	submodule?: true;
}

/** The mode git gives a submodule's entry (a "gitlink"). */
const SUBMODULE_MODE = "160000";

function statusOf(letter: string): { status: GitStatus; conflicted: boolean } {
	switch (letter) {
		case "A":
			return { status: "added", conflicted: false };
		case "D":
			return { status: "deleted", conflicted: false };
		case "R":
			return { status: "renamed", conflicted: false };
		case "C":
			return { status: "added", conflicted: false }; // a copy is a new file
		case "U":
			return { status: "modified", conflicted: true };
		default:
			return { status: "modified", conflicted: false }; // M, T (type change), X
	}
}

/**
 * Parses `git diff --raw --numstat -z [-M]`: first one raw record per path (`:<modes> <shas> <letter>[score]`,
 * then the path, or the old and the new path for R and C), then one numstat record per path (`<added>\t<removed>\t<path>`,
 * or `<added>\t<removed>\t` then the old and the new path for a rename; `-` counts for a binary file).
 * Unknown or cut records are skipped rather than misread.
 */
export function parseRawNumstat(output: string): GitChange[] {
	const tokens = output.split("\0");
	const changes: GitChange[] = [];
	const byPath = new Map<string, GitChange>();
	let i = 0;
	while (i < tokens.length) {
		const token = tokens[i]!;
		if (token === "") {
			i++;
			continue;
		}
		if (token.startsWith(":")) {
			const fields = token.slice(1).split(" ");
			const letter = fields.at(-1)?.charAt(0) ?? "";
			const submodule = fields[0] === SUBMODULE_MODE || fields[1] === SUBMODULE_MODE;
			const twoPaths = letter === "R" || letter === "C";
			const first = tokens[i + 1];
			const second = twoPaths ? tokens[i + 2] : undefined;
			i += twoPaths ? 3 : 2;
			if (first === undefined || (twoPaths && second === undefined)) break; // cut short
			const { status, conflicted } = statusOf(letter);
			const change: GitChange = twoPaths
				? { path: second!, oldPath: letter === "R" ? first : undefined, status, added: 0, removed: 0, binary: false, conflicted }
				: { path: first, status, added: 0, removed: 0, binary: false, conflicted };
			if (change.oldPath === undefined) delete change.oldPath;
			if (submodule) change.submodule = true;
			// An unmerged path may come twice (once per stage): the first stands for it.
			if (!byPath.has(change.path)) {
				byPath.set(change.path, change);
				changes.push(change);
			}
			continue;
		}
		const match = /^(-|\d+)\t(-|\d+)\t([\s\S]*)$/.exec(token);
		if (!match) {
			i++;
			continue;
		}
		const [, added, removed, inline] = match;
		let path = inline!;
		i++;
		if (path === "") {
			// a rename: the old path, then the new one
			path = tokens[i + 1] ?? "";
			i += 2;
		}
		const change = byPath.get(path);
		if (!change) continue;
		change.binary = added === "-" && removed === "-";
		change.added = change.binary ? 0 : Number(added);
		change.removed = change.binary ? 0 : Number(removed);
	}
	return changes;
}

/**
 * git's NUL-separated output read as latin1 (one character per byte: see GitOptions.encoding) made text again,
 * record by record: each that is UTF-8 is decoded as such; one that is not (a file name in another encoding)
 * is decoded with U+FFFD for its bad bytes and named in `undecodable`, since that name no longer names the
 * file: nothing can read, diff or revert it by that name.
 */
export function decodeRecords(latin1: string): { text: string; undecodable: Set<string> } {
	const undecodable = new Set<string>();
	const records = latin1.split("\0").map((record) => {
		const bytes = Buffer.from(record, "latin1");
		try {
			return strictUtf8.decode(bytes);
		} catch {
			const lossy = bytes.toString("utf8");
			undecodable.add(lossy);
			return lossy;
		}
	});
	return { text: records.join("\0"), undecodable };
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Parses NUL-ended paths (`git ls-files -z`). */
export function parseNulPaths(output: string): string[] {
	return output.split("\0").filter((path) => path !== "");
}
