/**
 * `npm run bench`: the streaming, fan-out, slow-consumer, web page, memory, session tree and session churn benchmarks one after another, each in its
 * own process and with the same arguments (so `npm run bench -- --write` updates every section of
 * docs/benchmarks.md).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const SCRIPTS = ["run.ts", "fan-out.ts", "slow-consumers.ts", "web-page.ts", "memory.ts", "tree.ts", "churn.ts"];

for (const script of SCRIPTS) {
	const path = fileURLToPath(new URL(script, import.meta.url));
	const result = spawnSync(process.execPath, ["--import", "tsx", path, ...process.argv.slice(2)], { stdio: "inherit" });
	if (result.status !== 0) {
		console.error(`bench/${script} failed (${result.signal ?? `exit code ${result.status}`})`);
		process.exit(result.status || 1);
	}
}
