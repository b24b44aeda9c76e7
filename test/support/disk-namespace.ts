/**
 * Runs the disk-fault scenario (disk-scenario.ts) in a private mount namespace, where it may mount a tmpfs
 * and remount it read-only without touching the machine's own mounts. As root `unshare --mount` is enough;
 * otherwise (or when that is refused) a user namespace maps the caller to root inside it. When no namespace
 * or mount can be made, this throws with every attempt's reason: the caller must fail, never skip.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionFileReport } from "./session-files.js";
import { REPO_ROOT } from "./skiff-process.js";

export type DiskFault = "full" | "readonly";

/** What the scenario is given (as JSON in its first argument). */
export interface DiskScenarioArgs {
	fault: DiskFault;
	/** An empty folder to mount the tmpfs on. */
	mountDir: string;
}

export interface PromptOutcome {
	label: string;
	text: string;
	success: boolean;
	error?: string;
}

/** What the scenario saw; the caller asserts on it. */
export interface DiskScenarioResult {
	fault: DiskFault;
	/** The namespace or the mount could not be made. */
	setupError?: string;
	/** A step threw (a response or event did not come); the fields hold what was seen until then. */
	failure?: string;
	/** Texts of every prompt that was acknowledged, in order. */
	acknowledged: string[];
	/** Prompts sent while the disk was faulty. */
	refused: PromptOutcome[];
	/** readonly: the prompt acknowledged just before the disk turned read-only under its reply. */
	heldPrompt?: PromptOutcome;
	/** The first prompt after the disk was writable again. */
	recovered?: PromptOutcome;
	/** The prompt after that one. */
	afterRecovery?: PromptOutcome;
	/** `recording_failed` and `recording_restored` events seen by a client that only follows the session. */
	followerEvents: Array<{ type: string; code?: string; error?: string }>;
	/** `ping` answers while the disk was faulty. */
	pings: Array<{ success: boolean; ms: number }>;
	firstRun: { stderr: string; exitCode: number | null };
	/** The session files after the first run stopped (SIGTERM), before anything could repair them. */
	beforeRestart: SessionFileReport[];
	/** After `skiff --continue`. */
	afterRestart: { userTexts: string[]; assistantTexts?: string[]; files: SessionFileReport[]; stderr: string; exitCode: number | null };
}

/** The line of the scenario's stdout that carries its result. */
export const RESULT_PREFIX = "DISK-SCENARIO-RESULT ";
const DRIVER = join(REPO_ROOT, "test", "support", "disk-scenario.ts");
const SCENARIO_LIMIT_MS = 90_000;

/** `unshare` options to try, in order. */
function namespaceOptions(): string[][] {
	const userNamespace = ["--user", "--map-root-user", "--mount"];
	return process.getuid?.() === 0 ? [["--mount"], userNamespace] : [userNamespace];
}

interface Attempt {
	command: string;
	code: number | null;
	stdout: string;
	stderr: string;
}

function runOnce(unshareOptions: string[], scenario: DiskScenarioArgs): Promise<Attempt> {
	const argv = [...unshareOptions, "--", process.execPath, "--import", "tsx", DRIVER, JSON.stringify(scenario)];
	return new Promise((resolve) => {
		let stdout = "";
		let stderr = "";
		const child = spawn("unshare", argv, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
		const timer = setTimeout(() => {
			stderr += `\n(killed after ${SCENARIO_LIMIT_MS / 1000} s)`;
			child.kill("SIGKILL");
		}, SCENARIO_LIMIT_MS);
		child.stdout.on("data", (d) => (stdout += d));
		child.stderr.on("data", (d) => (stderr += d));
		const done = (code: number | null) => {
			clearTimeout(timer);
			resolve({ command: `unshare ${unshareOptions.join(" ")}`, code, stdout, stderr });
		};
		child.on("error", (error) => {
			stderr += String(error);
			done(null);
		});
		child.on("close", (code) => done(code)); // "close": its result, on stdout, has been read whole
	});
}

/** Runs the scenario for `fault`; resolves with its result, or throws when it could not be set up. */
export async function runDiskScenario(fault: DiskFault): Promise<DiskScenarioResult> {
	const failures: string[] = [];
	for (const options of namespaceOptions()) {
		const mountDir = mkdtempSync(join(tmpdir(), "skiff-disk-"));
		try {
			const attempt = await runOnce(options, { fault, mountDir });
			const line = attempt.stdout.split("\n").find((l) => l.startsWith(RESULT_PREFIX));
			const result = line === undefined ? undefined : (JSON.parse(line.slice(RESULT_PREFIX.length)) as DiskScenarioResult);
			if (result && !result.setupError) return result;
			const reason = result?.setupError ?? (`exit ${attempt.code}: ${attempt.stderr.trim()}` || "no output");
			failures.push(`${attempt.command}: ${reason}`);
		} finally {
			rmSync(mountDir, { recursive: true, force: true });
		}
	}
	throw new Error(
		`Could not run the disk-fault scenario: it needs a private mount namespace (unshare) and a tmpfs mount.\n${failures.join("\n")}`,
	);
}
