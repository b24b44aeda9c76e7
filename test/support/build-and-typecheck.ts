/**
 * `npm test`'s first step: the build and both type checks, at once.
 *
 * Why at once: the build is a chain (tsc, then vite, then the bundle, which starts skiff once and waits for it to
 * write its code cache), so it leaves a core idle much of its time, and the type checks need nothing it makes
 * (tsconfig.test.json and web/tsconfig.json read sources only, never dist/). Run one after the other they took
 * about 11 s and 5 s here; together, about the build's time.
 *
 * Why incremental: a type check keeps tsc's build info under node_modules/.cache/skiff-typecheck/ (one folder per
 * checkout, as worktrees may share one node_modules), so a rerun checks only what changed. A clean clone (and CI,
 * whose `npm ci` empties node_modules) has none and checks everything, as before. The build itself is not
 * incremental: tsc would skip emitting into a dist/ removed since its build info was written.
 *
 * Each command's output is printed whole when it ends, so the two never mix; the step fails when either fails.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./skiff-process.js";

const cache = join(REPO_ROOT, "node_modules", ".cache", "skiff-typecheck", createHash("sha256").update(REPO_ROOT).digest("hex").slice(0, 12));
mkdirSync(cache, { recursive: true });
const tsc = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

interface Step {
	name: string;
	commands: Array<[string, string[]]>;
}

const steps: Step[] = [
	{ name: "build", commands: [[npm, ["run", "--silent", "build"]]] },
	{
		name: "typecheck",
		commands: [
			[process.execPath, [tsc, "-p", "tsconfig.test.json", "--incremental", "--tsBuildInfoFile", join(cache, "test.tsbuildinfo")]],
			[process.execPath, [tsc, "-p", "web/tsconfig.json", "--incremental", "--tsBuildInfoFile", join(cache, "web.tsbuildinfo")]],
		],
	},
];

/** Runs one command with its output kept; resolves with its exit code and output. */
function run(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
	return new Promise((resolve) => {
		const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
		const output: Buffer[] = [];
		child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
		child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
		child.on("error", (error) => output.push(Buffer.from(`${error.message}\n`)));
		child.on("close", (code) => resolve({ code, output: Buffer.concat(output).toString("utf8") }));
	});
}

/** A step's commands one after the other, stopping at the first that fails. */
async function runStep(step: Step): Promise<boolean> {
	const started = performance.now();
	for (const [command, args] of step.commands) {
		const { code, output } = await run(command, args);
		if (output.trim()) process.stdout.write(`\n▶ ${step.name}: ${[command, ...args].map((a) => a.replace(REPO_ROOT, "")).join(" ")}\n${output}`);
		if (code !== 0) {
			console.log(`✖ ${step.name} failed (exit ${code})`);
			return false;
		}
	}
	console.log(`✔ ${step.name} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
	return true;
}

const results = await Promise.all(steps.map(runStep));
if (results.includes(false)) process.exitCode = 1;
