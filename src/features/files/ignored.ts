/**
 * Which entries of a listed folder git ignores, from `git check-ignore --stdin`, run in that folder for the names
 * of one page only (never the whole folder, never the tree): a child process the event loop awaits, stopped after
 * IGNORE_TIMEOUT_MS (the runner stops git and whatever it started). The names go NUL-separated (any name, even
 * one with a line break), folders with a trailing "/" so that patterns for folders only (`build/`) match them (a
 * link gets none: git does not follow links, and refuses a path through one), each after "./" so that a name
 * starting with ":" is not read as pathspec magic (`:!x` would stop git; `:(top)x` would ask about another path;
 * check-ignore refuses `--literal-pathspecs`). Tracked files are never reported ignored (git's own rule).
 *
 * When git cannot answer (the folder is not in a repository, git is not installed, it timed out), no entry is
 * marked and the reason is returned as a note instead: the listing itself never fails for it.
 */
import { GitError, git } from "../git.js";

/** How long git may take to answer for one page (a hook-free command; a slow disk or a huge index). */
export const IGNORE_TIMEOUT_MS = 5_000;

export type IgnoreAnswer = { ignored: ReadonlySet<string> } | { note: string };

/** The names (of entries in the folder `dir`) git ignores, or why that is not known. */
export async function ignoredNames(
	dir: string,
	entries: ReadonlyArray<{ name: string; directory: boolean }>,
	timeoutMs = IGNORE_TIMEOUT_MS,
): Promise<IgnoreAnswer> {
	if (entries.length === 0) return { ignored: new Set() };
	const input = entries.map((entry) => `./${entry.name}${entry.directory ? "/" : ""}\0`).join("");
	let out: string;
	try {
		out = await git(dir, ["check-ignore", "-z", "--stdin"], { timeoutMs, input });
	} catch (error) {
		return noAnswer(error, timeoutMs);
	}
	const ignored = new Set<string>();
	// git answers with the paths as given: "./name" or "./name/".
	for (const path of out.split("\0")) if (path) ignored.add(path.slice(2, path.endsWith("/") ? -1 : undefined));
	return { ignored };
}

/** Exit 1 means "none of them is ignored"; anything else means git could not say. */
function noAnswer(error: unknown, timeoutMs: number): IgnoreAnswer {
	if (error instanceof GitError) {
		if (error.details.exitCode === 1) return { ignored: new Set() };
		if (error.timedOut) return { note: `git did not answer within ${timeoutMs / 1000} s: ignored entries are not marked` };
		if (/not a git repository/i.test(error.stderr)) return { note: "not a git repository: ignored entries are not marked" };
		if (/ENOENT|could not run/.test(error.message)) return { note: "git is not installed: ignored entries are not marked" };
		return { note: `git could not tell which entries it ignores (${error.stderr.split("\n")[0]?.slice(0, 200) || `exit ${error.details.exitCode}`}): none is marked` };
	}
	return { note: "git could not tell which entries it ignores: none is marked" };
}
