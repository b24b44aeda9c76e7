/**
 * Real git repositories for the workflow tests: a base with one commit, a branch that changes, adds and
 * deletes files, and a reference-transaction hook that holds (or refuses) the move of `main` the way a slow
 * or hostile hook of the user's does.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "./until.js";

export const sh = (dir: string, ...args: string[]) =>
	execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", ...args], { cwd: dir, encoding: "utf8" });

const made: string[] = [];

/** A new temporary folder (its real path: git answers real paths), removed by removeTempRepos. */
export function tempRepoDir(prefix = "skiff-wf-repo-"): string {
	const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
	made.push(dir);
	return dir;
}

/** Removes every folder tempRepoDir made (for `after`). */
export function removeTempRepos(): void {
	for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A repository on `main` with a.txt and c.txt committed. */
export function baseRepository(dir = tempRepoDir()): string {
	sh(dir, "init", "-q", "-b", "main");
	writeFileSync(join(dir, "a.txt"), "one\n");
	writeFileSync(join(dir, "c.txt"), "to be deleted\n");
	sh(dir, "add", "-A");
	sh(dir, "commit", "-q", "-m", "first");
	return dir;
}

/** A commit on `branch` (from main's head) that changes a.txt, adds b.txt and d/e.txt and deletes c.txt; returns it. */
export function changingBranch(repo: string, branch = "side"): string {
	sh(repo, "switch", "-q", "-c", branch);
	writeFileSync(join(repo, "a.txt"), "two\n");
	writeFileSync(join(repo, "b.txt"), "new\n");
	mkdirSync(join(repo, "d"), { recursive: true });
	writeFileSync(join(repo, "d", "e.txt"), "deep\n");
	sh(repo, "rm", "-q", "c.txt");
	sh(repo, "add", "-A");
	sh(repo, "commit", "-q", "-m", "change");
	const commit = sh(repo, "rev-parse", "HEAD").trim();
	sh(repo, "switch", "-q", "main");
	return commit;
}

export interface HeldHook {
	/** Written by the hook (its pid) once it holds the move of main. */
	pidFile: string;
	/** Lets every held move go on. */
	release(): void;
	/** The hook's pid, once it holds a move. */
	pid(): number;
}

/**
 * Gives the repository these hooks (name to shell script body), through core.hooksPath pointing outside the
 * repository; resolves with the hooks' folder.
 */
export function useHooks(repo: string, hooks: Record<string, string>): string {
	const dir = tempRepoDir("skiff-wf-hooks-");
	for (const [name, body] of Object.entries(hooks)) {
		writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
		chmodSync(join(dir, name), 0o755);
	}
	sh(repo, "config", "core.hooksPath", dir);
	return dir;
}

/** A reference-transaction hook body that runs `action` when a transaction moving `ref` (refs/heads/main) is prepared. */
export const onMove = (action: string, ref = "refs/heads/main") =>
	`input=$(cat)\ncase "$input" in *" ${ref}"*)\n  if [ "$1" = prepared ]; then ${action}; fi;;\nesac\nexit 0`;

/**
 * Installs a reference-transaction hook that, when a transaction moving `ref` is prepared, records its pid
 * and waits until released. For main, in a fast-forward: git has then written ORIG_HEAD, the new files and
 * the index, holds main's lock, and has not moved main yet.
 */
export function holdMoves(repo: string, ref = "refs/heads/main"): HeldHook {
	const hooks = tempRepoDir("skiff-wf-held-");
	const pidFile = join(hooks, "held.pid");
	const releaseFile = join(hooks, "release");
	useHooks(repo, { "reference-transaction": onMove(`echo $$ > '${pidFile}'; while [ ! -e '${releaseFile}' ]; do sleep 0.05; done`, ref) });
	return { pidFile, release: () => writeFileSync(releaseFile, ""), pid: () => Number(readFileSync(pidFile, "utf8")) };
}

/** Installs a reference-transaction hook that refuses every move of refs/heads/main (after git wrote the files). */
export function refuseMainMoves(repo: string): void {
	useHooks(repo, { "reference-transaction": onMove("exit 1") });
}

/**
 * A hook's shell line writing `pid` (by default the hook's own, `$$`) to `file` whole: to a temporary name, then
 * renamed, so a reader never sees the file created but still empty (a pid of 0 asks about the reader's own group).
 */
export function writePid(file: string, pid = "$$"): string {
	return `echo ${pid} > ${file}.tmp && mv ${file}.tmp ${file}`;
}

/** The pid a hook wrote with writePid, once it is there. */
export async function writtenPid(file: string, what = "the hook to start"): Promise<number> {
	await until(() => existsSync(file), what);
	return Number(readFileSync(file, "utf8"));
}

/** The process group a process is in (from /proc: the hook runs in git's group). */
export function processGroupOf(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
	return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

/**
 * Whether a process runs (a zombie not yet reaped has ended). Only for a real pid: 0 (the number of a pid file
 * read while still empty) would ask about the test's own process group, which always runs.
 */
export function alive(pid: number): boolean {
	if (!Number.isInteger(pid) || pid <= 0) throw new Error(`alive() needs a process id, got ${pid}`);
	try {
		process.kill(pid, 0);
	} catch {
		return false;
	}
	try {
		return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
	} catch {
		return true;
	}
}
