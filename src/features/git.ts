/**
 * git for the features that need it (workflows, changes), through the `git` program.
 *
 * git runs as a child process the event loop waits for without blocking (a hook, fsmonitor or credential
 * helper that hangs must not freeze every client), each command bounded by GIT_TIMEOUT_MS: past it, git and
 * whatever it started (its own process group) are stopped and the command fails saying so. Its output is
 * bounded too: past the bound the command fails, or, for callers that show output to a person (a diff),
 * stops and answers what came so far, marked truncated (`gitBounded`). Every git and what it started stop with the
 * service (git-groups.ts).
 */
import { spawn } from "node:child_process";
import { access } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { CodedError } from "../shared/errors.js";
import { signalGroup } from "../shared/process-group.js";
import { GIT_KILL_GRACE_MS, releaseGroup, stopGroup, trackGroup } from "./git-groups.js";

/** How long one git command may run before it is stopped (SKIFF_GIT_TIMEOUT_MS overrides it, e.g. for tests). */
export const GIT_TIMEOUT_MS = 30_000;
/** Git's output is small here; a larger one is a sign of something else. */
const MAX_GIT_OUTPUT_BYTES = 16 * 1024 * 1024;
/** Of git's error output, the lines (and at most the characters) an error message quotes from its end. */
const STDERR_TAIL_LINES = 4;
const STDERR_TAIL_CHARS = 600;
/** How much of the command line an error message shows. */
const COMMAND_CHARS = 200;

export interface GitOptions {
	/** Milliseconds the command may run (default: SKIFF_GIT_TIMEOUT_MS, else GIT_TIMEOUT_MS). */
	timeoutMs?: number;
	/** What git reads on its standard input (for `--stdin` commands); without it, standard input is closed. */
	input?: string;
	/** Exit codes that mean success besides 0 (`git diff --no-index` exits 1 when the files differ). */
	okExitCodes?: readonly number[];
	/** Extra environment for git (e.g. GIT_INDEX_FILE). */
	env?: Readonly<Record<string, string>>;
	/**
	 * How git's output is decoded (default UTF-8). `latin1` keeps every byte as one character, for output that
	 * holds file names, which need not be UTF-8: the caller tells names that are from those that are not.
	 */
	encoding?: "utf8" | "latin1";
}

/** What `gitBounded` answers: git's output up to the bound, and whether git was stopped there. */
export interface BoundedOutput {
	output: string;
	truncated: boolean;
}

/** git failed: it exited non-zero (`exitCode`), was stopped after the timeout (`timedOut`), or could not run. */
export class GitError extends CodedError {
	constructor(
		message: string,
		readonly stderr: string,
		readonly details: { exitCode?: number; timedOut?: boolean } = {},
	) {
		super("failed", message);
		this.name = "GitError";
	}

	get timedOut(): boolean {
		return this.details.timedOut === true;
	}
}

/**
 * Configuration for every git the service runs (as GIT_CONFIG_COUNT entries, after the user's own): no automatic
 * maintenance. `gc --auto` and `maintenance run --auto` (after a commit, a merge) detach into a session of their
 * own, beyond the reach of git's process group, so they would outlive the service; the user's own git runs them.
 */
const SERVICE_GIT_CONFIG: ReadonlyArray<readonly [string, string]> = [
	["maintenance.auto", "false"],
	["gc.auto", "0"],
	["gc.autoDetach", "false"],
	["maintenance.autoDetach", "false"],
];

/** `env` with SERVICE_GIT_CONFIG added to the configuration it passes to git through GIT_CONFIG_COUNT. */
function withServiceConfig(env: Record<string, string | undefined>): Record<string, string | undefined> {
	const given = Number(env.GIT_CONFIG_COUNT ?? 0);
	const count = Number.isInteger(given) && given >= 0 ? given : 0;
	const added: Record<string, string> = { GIT_CONFIG_COUNT: String(count + SERVICE_GIT_CONFIG.length) };
	SERVICE_GIT_CONFIG.forEach(([key, value], i) => {
		added[`GIT_CONFIG_KEY_${count + i}`] = key;
		added[`GIT_CONFIG_VALUE_${count + i}`] = value;
	});
	return { ...env, ...added };
}

/** The timeout in force: the option, else a valid SKIFF_GIT_TIMEOUT_MS, else the default. */
export function gitTimeoutMs(options: GitOptions = {}): number {
	if (options.timeoutMs !== undefined) return options.timeoutMs;
	const fromEnv = Number(process.env.SKIFF_GIT_TIMEOUT_MS);
	return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : GIT_TIMEOUT_MS;
}

/**
 * Runs git in `dir` and resolves with its output. Rejects with a GitError naming the command and the
 * directory: with the exit code and the end of git's own message when it fails, or after the timeout, once
 * git and its children (hooks, helpers) are stopped.
 */
export async function git(dir: string, args: string[], options: GitOptions = {}): Promise<string> {
	return (await run(dir, args, options, undefined)).output;
}

/**
 * Runs git as `git` does, but stops it once it wrote `maxBytes` and answers the output so far (cut at the
 * last whole line) marked truncated, rather than failing: for output a person reads (a diff of a huge file).
 */
export function gitBounded(dir: string, args: string[], maxBytes: number, options: GitOptions = {}): Promise<BoundedOutput> {
	return run(dir, args, options, maxBytes);
}

function run(dir: string, args: string[], options: GitOptions, truncateAt: number | undefined): Promise<BoundedOutput> {
	const timeoutMs = gitTimeoutMs(options);
	const command = describeCommand(args);
	return new Promise((resolve, reject) => {
		// Its own process group (POSIX), so that a timeout stops the hooks and helpers it started too.
		const group = process.platform !== "win32";
		let child: ReturnType<typeof spawn>;
		try {
			child = spawn("git", args, {
				cwd: dir,
				stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
				detached: group,
				// Never prompt, never open an editor, and read no message templates that could wait for a person.
				env: withServiceConfig({ ...process.env, ...options.env, GIT_TERMINAL_PROMPT: "0", GIT_EDITOR: "true", GIT_MERGE_AUTOEDIT: "no", LC_ALL: "C" }),
			});
		} catch (error) {
			reject(new GitError(`${command} could not run in ${dir}: ${(error as Error).message}`, ""));
			return;
		}
		const pid = child.pid;
		if (group && pid !== undefined) trackGroup(pid);
		const stdout: Buffer[] = [];
		let stdoutBytes = 0;
		let stderr = "";
		let settled = false;
		let stopping: "timeout" | "output" | "enough" | undefined;
		let graceTimer: NodeJS.Timeout | undefined;

		const signal = (name: NodeJS.Signals) => {
			if (group && pid !== undefined) signalGroup(pid, name);
			else child.kill(name);
		};
		const settle = (error: GitError | undefined, output?: BoundedOutput) => {
			if (settled) return;
			settled = true;
			if (group && pid !== undefined) releaseGroup(pid);
			clearTimeout(timer);
			clearTimeout(graceTimer);
			if (error) {
				child.stdout?.destroy();
				child.stderr?.destroy();
				reject(error);
			} else resolve(output!);
		};
		const stoppedError = () =>
			stopping === "output"
				? new GitError(`${command} wrote more than ${MAX_GIT_OUTPUT_BYTES / (1024 * 1024)} MiB in ${dir}; it was stopped`, stderr)
				: new GitError(`${command} timed out after ${formatSeconds(timeoutMs)} in ${dir}${tailOf(stderr, ": ")}`, stderr, { timedOut: true });
		/** SIGTERM first (git removes its lock files on it), SIGKILL to whatever is left after the grace. */
		const stop = (why: "timeout" | "output") => {
			if (stopping) return;
			stopping = why;
			signal("SIGTERM");
			graceTimer = setTimeout(() => {
				signal("SIGKILL");
				settle(stoppedError());
			}, GIT_KILL_GRACE_MS);
		};
		const timer = setTimeout(() => stop("timeout"), timeoutMs);
		if (options.input !== undefined) {
			// git may exit before reading it all (a fatal error): the broken pipe is its answer, not ours.
			child.stdin!.on("error", () => undefined);
			child.stdin!.end(options.input);
		}

		const truncatedOutput = (): BoundedOutput => {
			const all = Buffer.concat(stdout).subarray(0, truncateAt);
			const lastLine = all.lastIndexOf(10);
			return { output: all.subarray(0, lastLine + 1).toString(options.encoding ?? "utf8"), truncated: true };
		};
		child.stdout!.on("data", (chunk: Buffer) => {
			if (stopping) return;
			stdoutBytes += chunk.length;
			stdout.push(chunk);
			if (truncateAt !== undefined && stdoutBytes > truncateAt) {
				// Enough for the reader: stop git and what it started (SIGKILL after the grace), and its pipe, and
				// answer what came so far.
				stopping = "enough";
				if (group && pid !== undefined) stopGroup(pid);
				else signal("SIGTERM");
				child.stdout?.destroy();
				settle(undefined, truncatedOutput());
				return;
			}
			if (stdoutBytes > MAX_GIT_OUTPUT_BYTES) return stop("output");
		});
		child.stderr!.setEncoding("utf8");
		child.stderr!.on("data", (chunk: string) => {
			stderr = (stderr + chunk).slice(-64 * 1024);
		});
		child.on("error", (error) => {
			signal("SIGKILL");
			settle(new GitError(`${command} could not run in ${dir}: ${error.message}`, stderr));
		});
		// Once git exited after being stopped, its children go too (one that ignored SIGTERM could hold the pipes open).
		child.on("exit", () => {
			if (!stopping) return;
			signal("SIGKILL");
			settle(stoppedError());
		});
		child.on("close", (code, signalName) => {
			if (stopping) return settle(stoppedError());
			if (code === 0 || (code !== null && options.okExitCodes?.includes(code))) return settle(undefined, { output: Buffer.concat(stdout).toString(options.encoding ?? "utf8"), truncated: false });
			const how = code !== null ? `exit ${code}` : `signal ${signalName}`;
			settle(new GitError(`${command} failed (${how}) in ${dir}${tailOf(stderr, ": ")}`, stderr.trim(), code !== null ? { exitCode: code } : {}));
		});
	});
}

/** `git <args>` for a message: without `-c` settings, long or spaced arguments quoted and cut. */
function describeCommand(args: string[]): string {
	const shown: string[] = [];
	for (let i = 0; i < args.length; i++) {
		if (args[i] === "-c" && shown.length === 0) {
			i++;
			continue;
		}
		const arg = args[i]!.length > 60 ? `${args[i]!.slice(0, 59)}…` : args[i]!;
		shown.push(/^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg));
	}
	const line = ["git", ...shown].join(" ");
	return line.length > COMMAND_CHARS ? `${line.slice(0, COMMAND_CHARS - 1)}…` : line;
}

/**
 * The last lines of git's error output on one line, after `prefix`; empty when there are none. git's own
 * `fatal:` line comes first when advice follows it past those lines (a lock file's "Unable to create
 * '<path>.lock'", which names the file, is followed by four lines of advice).
 */
function tailOf(stderr: string, prefix: string): string {
	const all = stderr.split("\n").map((line) => line.trim()).filter(Boolean);
	const lines = all.slice(-STDERR_TAIL_LINES);
	const fatal = all.find((line) => line.startsWith("fatal: "));
	if (fatal && !lines.includes(fatal)) lines.unshift(fatal);
	if (!lines.length) return "";
	const text = lines.join(" ");
	return prefix + (text.length > STDERR_TAIL_CHARS ? `…${text.slice(-(STDERR_TAIL_CHARS - 1))}` : text);
}

function formatSeconds(ms: number): string {
	return `${Number((ms / 1000).toFixed(3))} s`;
}

/** For helpers that answer a question by git's exit status: a git that timed out answered nothing, so that goes on up. */
export function rethrowTimeout(error: unknown): void {
	if (error instanceof GitError && error.timedOut) throw error;
}

/** The repository's top level containing `dir`, or undefined when `dir` is not in a git work tree. */
export async function repositoryRoot(dir: string): Promise<string | undefined> {
	if (!(await mayBeInRepository(dir))) return undefined;
	try {
		return (await git(dir, ["rev-parse", "--show-toplevel"])).trim() || undefined;
	} catch (error) {
		rethrowTimeout(error);
		return undefined;
	}
}

/** What git looks for when it finds the repository of a directory: a `.git` (folder or file), or a git folder itself. */
const REPOSITORY_MARKS = [".git", "HEAD"];
/** With one of these set, git finds its repository from the environment, not from the directory. */
const REPOSITORY_VARIABLES = ["GIT_DIR", "GIT_WORK_TREE"];

/**
 * Whether git could find a repository for `dir`: some folder from `dir` up holds a `.git` or is a git folder
 * (holds `HEAD`), or the environment names one. When none does, git would only say "not a git repository";
 * asking it costs a process (the changes feature asks at every prompt of a session outside git: the fork
 * alone is milliseconds of a large service's CPU). A few `access` calls on the thread pool answer instead.
 */
async function mayBeInRepository(dir: string): Promise<boolean> {
	if (REPOSITORY_VARIABLES.some((name) => process.env[name])) return true;
	for (let folder = resolve(dir); ; folder = dirname(folder)) {
		for (const mark of REPOSITORY_MARKS) {
			if (await access(join(folder, mark)).then(() => true, () => false)) return true;
		}
		if (dirname(folder) === folder) return false;
	}
}

/** The commit checked out, or undefined in a repository without commits. */
export async function headCommit(dir: string): Promise<string | undefined> {
	try {
		return (await git(dir, ["rev-parse", "--verify", "-q", "HEAD"])).trim() || undefined;
	} catch (error) {
		rethrowTimeout(error);
		return undefined;
	}
}

/** The branch checked out, or undefined when HEAD is detached. */
export async function currentBranch(dir: string): Promise<string | undefined> {
	try {
		return (await git(dir, ["symbolic-ref", "--short", "-q", "HEAD"])).trim() || undefined;
	} catch (error) {
		rethrowTimeout(error);
		return undefined;
	}
}

/**
 * Where git keeps each of `names` for the checkout at `dir` (`git rev-parse --git-path`), as absolute paths:
 * a linked worktree has its own HEAD, index and operation files, and shares refs with the repository.
 */
export async function gitPaths(dir: string, names: readonly string[]): Promise<string[]> {
	const out = await git(dir, ["rev-parse", ...names.flatMap((name) => ["--git-path", name])]);
	const paths = out.split("\n").slice(0, names.length);
	if (paths.length !== names.length) throw new GitError(`git rev-parse --git-path answered ${paths.length} paths for ${names.length} in ${dir}`, "");
	return paths.map((path) => resolve(dir, path));
}
