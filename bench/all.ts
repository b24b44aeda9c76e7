/**
 * `npm run bench`: every benchmark below, one after another, each in its
 * own process and with the same arguments (so `npm run bench -- --write` updates every section of
 * docs/benchmarks.md).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const SCRIPTS = [
	"run.ts",
	"fan-out.ts", // 100 clients follow one 20,000-delta reply
	"slow-consumers.ts", // 30 clients stop reading during a 200,000-delta reply
	"web-page.ts",
	"memory.ts",
	"tree.ts",
	"churn.ts",
	"startup.ts", // cold start and idle memory over many starts, beside codex with --codex
	"unknown-sessions.ts", // 128 unknown session ids among 5,000 files
	"half-open.ts", // 300 half-open connections closed by the header deadline
	"files.ts",
	"changes.ts",
	"session-search.ts", // a search over 5,000 session files while a client pings
];

for (const script of SCRIPTS) {
	const path = fileURLToPath(new URL(script, import.meta.url));
	const result = spawnSync(process.execPath, ["--import", "tsx", path, ...process.argv.slice(2)], { stdio: "inherit" });
	if (result.status !== 0) {
		console.error(`bench/${script} failed (${result.signal ?? `exit code ${result.status}`})`);
		process.exit(result.status || 1);
	}
}
