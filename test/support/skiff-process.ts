/** Starts the real `skiff` binary as a child process and waits for its listening banner. */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const REPO_ROOT = new URL("../../", import.meta.url).pathname;
const BIN = join(REPO_ROOT, "bin", "skiff");
const BANNER = /Control plane listening on (http:\/\/\S+) \(([^)]*)\)/;

export interface SkiffProcess {
	url: string;
	/** e.g. ws://127.0.0.1:PORT/ws */
	wsUrl: string;
	banner: string;
	/** Resolves once the agent runtime is loaded (the `Ready` line after the banner; warnings come before it). */
	ready: Promise<void>;
	child: ChildProcess;
	stdout(): string;
	stderr(): string;
	/** Sends a signal and resolves with the exit code. */
	stop(signal?: NodeJS.Signals): Promise<number | null>;
	/** Sends a signal to skiff's process group (Ctrl-C in a terminal; needs `ownGroup`) and resolves with the exit code. */
	signalGroup(signal: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
	args?: string[];
	agentDir: string;
	cwd?: string;
	env?: Record<string, string>;
	listen?: string;
	/** Options for node itself, before the script (e.g. `--cpu-prof`, which NODE_OPTIONS refuses). */
	nodeArgs?: string[];
	/** Another copy of bin/skiff (of the package) to run. */
	bin?: string;
	/** Runs skiff in a process group of its own, as a shell runs a job: `signalGroup` then signals it all. */
	ownGroup?: boolean;
}

export function tempDir(prefix = "skiff-test-"): string {
	return mkdtempSync(join(tmpdir(), prefix));
}

/** Runs skiff to completion (for start-up failures and --help); resolves with code and output. */
export function runSkiff(args: string[], env: Record<string, string> = {}, bin = BIN): Promise<{ code: number | null; stdout: string; stderr: string }> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [bin, ...args], { env: { ...baseEnv(), ...env }, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d) => (stdout += d));
		child.stderr.on("data", (d) => (stderr += d));
		child.on("close", (code) => resolve({ code, stdout, stderr })); // "close": all it wrote has been read
	});
}

/**
 * Runs skiff to completion with standard output and error written to one file, so its lines keep the order
 * they were written in (two pipes would lose it): for what must come before what.
 */
export async function runSkiffInOrder(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
	const path = join(tempDir(), "output");
	const fd = openSync(path, "w");
	try {
		const child = spawn(process.execPath, [BIN, ...args], { env: { ...baseEnv(), ...env }, stdio: ["ignore", fd, fd] });
		const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
		return { code, output: readFileSync(path, "utf8") };
	} finally {
		closeSync(fd);
	}
}


/** How a start ended: listening (the banner), or exited before it (e.g. refused), with everything it wrote. */
export type StartOutcome = { listening: SkiffProcess } | { exited: { code: number | null; stdout: string; stderr: string } };

/** Starts skiff; throws when it exits before its listening banner (see {@link launchSkiff} for either outcome). */
export async function startSkiff(options: StartOptions): Promise<SkiffProcess> {
	const outcome = await launchSkiff(options);
	if ("listening" in outcome) return outcome.listening;
	const { code, stdout, stderr } = outcome.exited;
	throw new Error(`skiff exited (${code}) before listening.\nstdout: ${stdout}\nstderr: ${stderr}`);
}

/** Starts skiff and resolves once it listens or has exited, whichever comes first. */
export function launchSkiff(options: StartOptions): Promise<StartOutcome> {
	const args = ["--listen", options.listen ?? "127.0.0.1:0", ...(options.args ?? [])];
	if (options.cwd) args.push("--cwd", options.cwd);
	const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.bin ?? BIN, ...args], {
		env: { ...baseEnv(), SKIFF_AGENT_DIR: options.agentDir, ...options.env },
		stdio: ["ignore", "pipe", "pipe"], // stdin closed on purpose: the service must not need it
		detached: options.ownGroup === true,
	});
	let stdout = "";
	let stderr = "";
	child.stdout!.on("data", (d) => (stdout += d));
	child.stderr!.on("data", (d) => (stderr += d));
	// "close", not "exit": a test reads stdout and stderr once its stop has resolved, so all of it must have been read.
	const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			child.kill("SIGKILL");
			reject(new Error(`skiff did not start in time.\nstdout: ${stdout}\nstderr: ${stderr}`));
		}, 20_000);
		const onData = () => {
			const match = BANNER.exec(stdout);
			if (!match) return;
			clearTimeout(timer);
			child.stdout!.off("data", onData);
			const url = match[1]!;
			resolve({
				listening: {
					url,
					wsUrl: `${url.replace(/^http/, "ws")}/ws`,
					banner: match[0],
					child,
					stdout: () => stdout,
					stderr: () => stderr,
					ready: new Promise<void>((ready) => {
						const check = () => {
							if (!/^Ready\b/m.test(stdout)) return;
							child.stdout!.off("data", check);
							ready();
						};
						child.stdout!.on("data", check);
						check();
					}),
					stop: (signal = "SIGTERM") => {
						if (child.exitCode === null) child.kill(signal);
						return exited;
					},
					signalGroup: (signal) => {
						if (!options.ownGroup) throw new Error("signalGroup needs a skiff started with ownGroup");
						try {
							if (child.exitCode === null) process.kill(-child.pid!, signal);
						} catch {
							// exited just now
						}
						return exited;
					},
				},
			});
		};
		child.stdout!.on("data", onData);
		// "close", not "exit": by then everything the process wrote has been read.
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve({ exited: { code, stdout, stderr } });
		});
	});
}

/** The environment without provider keys from the developer's shell, so tests see only the fake model. */
function baseEnv(): Record<string, string> {
	const env: Record<string, string> = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (value === undefined) continue;
		if (/API_KEY|TOKEN|SECRET|^AWS_|^AZURE_|^GOOGLE_|^SKIFF_/.test(key)) continue;
		env[key] = value;
	}
	return env;
}
