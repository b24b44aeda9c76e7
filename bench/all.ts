/**
 * `npm run bench`: the streaming, web page, memory, session tree and session churn benchmarks one after another, each in its
 * own process and with the same arguments (so `npm run bench -- --write` updates every section of
 * docs/benchmarks.md).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const SCRIPTS = ["run.ts", "web-page.ts", "memory.ts", "tree.ts", "churn.ts"];
SCRIPTS.push("unknown-sessions.ts"); // issue 21, item 5: 128 unknown session ids among 5,000 files
SCRIPTS.push("half-open.ts"); // issue 21, item 6: 300 half-open connections closed by the header deadline
SCRIPTS.push("session-search.ts"); // issue 22, item 6: a search over 5,000 session files while a client pings

for (const script of SCRIPTS) {
	const path = fileURLToPath(new URL(script, import.meta.url));
	const result = spawnSync(process.execPath, ["--import", "tsx", path, ...process.argv.slice(2)], { stdio: "inherit" });
	if (result.status !== 0) {
		console.error(`bench/${script} failed (${result.signal ?? `exit code ${result.status}`})`);
		process.exit(result.status || 1);
	}
}
