/** Which code a benchmark measured, for the rows it writes: the last commit of what runs, `+` if changed since. */
import { execFileSync } from "node:child_process";

/** What runs: src/ (built into the bundle), the launcher and the build scripts. */
const RUNS = ["--", "src", "bin", "scripts"];

/** e.g. `47d7faf`, or `47d7faf+` when src/, bin/ or scripts/ have uncommitted changes; `unknown` without git. */
export function measuredCommit(): string {
	try {
		const git = (...args: string[]) => execFileSync("git", args, { encoding: "utf8" }).trim();
		return `${git("log", "-1", "--format=%h", ...RUNS)}${git("status", "--porcelain", ...RUNS) ? "+" : ""}`;
	} catch {
		return "unknown";
	}
}
