/**
 * `npm test`'s first step: the build and both type checks, overlapped.
 *
 * Why overlapped: the build is a chain (tsc, then vite, then the bundle, which starts skiff once and waits for it to
 * write its code cache), so it leaves a core idle much of its time. The page's type check reads sources only and
 * starts at once. The tests' type check needs the client's declarations the build's tsc writes (client.test.ts
 * imports `skiff/client`, which resolves to dist/client/*.d.ts), so it starts once the build's tsc commands have
 * run, beside the rest of the build. One after the other they took about 42 s in a clean clone here, overlapped 25.
 *
 * Why incremental: a type check keeps tsc's build info under node_modules/.cache/skiff-typecheck/ (one folder per
 * checkout, as worktrees may share one node_modules), so a rerun checks only what changed. A clean clone (and CI,
 * whose `npm ci` empties node_modules) has none and checks everything, as before. The build itself is not
 * incremental: tsc would skip emitting into a dist/ removed since its build info was written.
 *
 * The build's commands are package.json's `build` script, run part by part (its parts are joined by `&&`). Each
 * command's output is printed whole when it ends, so none mix; the step fails when any command fails.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { REPO_ROOT } from "./skiff-process.js";

const cache = join(REPO_ROOT, "node_modules", ".cache", "skiff-typecheck", createHash("sha256").update(REPO_ROOT).digest("hex").slice(0, 12));
mkdirSync(cache, { recursive: true });
const tsc = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
/** As `npm run` does: the packages' commands (tsc, vite) on the PATH. */
const env = { ...process.env, PATH: `${join(REPO_ROOT, "node_modules", ".bin")}${delimiter}${process.env.PATH ?? ""}` };

const buildParts: string[] = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).scripts.build.split(" && ");
const lastTsc = buildParts.reduce((last, part, index) => (part.startsWith("tsc ") ? index : last), -1);
const typecheck = (config: string, info: string): Command => [process.execPath, [tsc, "-p", config, "--incremental", "--tsBuildInfoFile", join(cache, info)]];
const shell = (part: string): Command => ["sh", ["-c", part]];

type Command = [string, string[]];

/** Runs one command with its output kept and printed whole when it ends; resolves whether it succeeded. */
function run(name: string, [command, args]: Command): Promise<boolean> {
	const started = performance.now();
	return new Promise((resolve) => {
		const child = spawn(command, args, { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
		const output: Buffer[] = [];
		child.stdout.on("data", (chunk: Buffer) => output.push(chunk));
		child.stderr.on("data", (chunk: Buffer) => output.push(chunk));
		child.on("error", (error) => output.push(Buffer.from(`${error.message}\n`)));
		child.on("close", (code) => {
			const text = Buffer.concat(output).toString("utf8");
			const seconds = ((performance.now() - started) / 1000).toFixed(1);
			const line = (command === "sh" ? args[1]! : [command, ...args].join(" ")).replaceAll(REPO_ROOT, "");
			console.log(`${code === 0 ? "✔" : "✖"} ${name}: ${line} (${seconds} s${code === 0 ? "" : `, exit ${code}`})`);
			if (text.trim()) process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
			resolve(code === 0);
		});
	});
}

/** Commands one after the other, stopping at the first that fails; `after(i)` runs once the i-th has succeeded. */
async function chain(name: string, commands: Command[], after?: (index: number) => void): Promise<boolean> {
	for (const [index, command] of commands.entries()) {
		if (!(await run(name, command))) return false;
		after?.(index);
	}
	return true;
}

let testsChecked: Promise<boolean> = Promise.resolve(false);
const built = chain("build", buildParts.map(shell), (index) => {
	if (index === lastTsc) testsChecked = run("typecheck", typecheck("tsconfig.test.json", "test.tsbuildinfo"));
});
const pageChecked = run("typecheck", typecheck("web/tsconfig.json", "web.tsbuildinfo"));
const results = [await built, await pageChecked, await testsChecked];
if (results.includes(false)) process.exitCode = 1;
