/** The commit a benchmark measured: the last one that changed src/ (so a table row names the code it timed). */
import { execFileSync } from "node:child_process";

export function srcCommit(): string {
	try {
		return execFileSync("git", ["log", "-1", "--format=%h", "--", "src"], { encoding: "utf8" }).trim();
	} catch {
		return "unknown";
	}
}
