/**
 * The changes commands on a working tree with many changes: a git repository of 2,000 tracked files of 200
 * lines, 500 of them modified, 100 deleted and 400 untracked files beside them, against a real skiff.
 * Times `changes_get` (listing, counts and a token per file) and `changes_diff` of one file over a WebSocket,
 * and how late a `ping` from another client is answered while a `changes_get` runs (the event loop stays free:
 * git runs as a child process, files are hashed chunk by chunk). Prints medians with p25–p75.
 * Usage: npm run build && node --import tsx bench/changes.ts [-- --rounds 200 --write]
 */
import { mkdirSync, writeFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { baseRepository, removeTempRepos, sh, tempRepoDir } from "../test/support/git-repo.js";
import { startSkiff, tempDir } from "../test/support/skiff-process.js";
import { TestClient } from "../test/support/ws-client.js";
import { writeBenchSection } from "./doc-section.js";
import { readBenchOptions } from "./options.js";
import { formatNumber, medianWithSpread } from "../stress/stats.js";

const options = readBenchOptions();
const ROUNDS = Math.min(options.rounds, 50);
const TRACKED = 2_000;
const MODIFIED = 500;
const DELETED = 100;
const UNTRACKED = 400;

const lines = (seed: number) => Array.from({ length: 200 }, (_, i) => `line ${i} of file ${seed}: some code-like text here`).join("\n") + "\n";
const repo = baseRepository(tempRepoDir("skiff-bench-changes-"));
for (let i = 0; i < TRACKED; i++) {
	mkdirSync(join(repo, `src/d${i % 40}`), { recursive: true });
	writeFileSync(join(repo, `src/d${i % 40}/f${i}.ts`), lines(i));
}
sh(repo, "add", "-A");
sh(repo, "commit", "-q", "-m", "tree");
for (let i = 0; i < MODIFIED; i++) writeFileSync(join(repo, `src/d${i % 40}/f${i}.ts`), lines(i).replace("line 100", "line one hundred").replace("line 150", "line 150\nadded"));
for (let i = MODIFIED; i < MODIFIED + DELETED; i++) unlinkSync(join(repo, `src/d${i % 40}/f${i}.ts`));
mkdirSync(join(repo, "new"));
for (let i = 0; i < UNTRACKED; i++) writeFileSync(join(repo, `new/n${i}.ts`), lines(-i));

const skiff = await startSkiff({ agentDir: tempDir("skiff-bench-changes-agent-"), cwd: repo, args: [] });
const client = await TestClient.connect(skiff.wsUrl);
const pinger = await TestClient.connect(skiff.wsUrl);
const first = await client.ok({ type: "changes_get" }, 60_000);
if (first.total !== MODIFIED + DELETED + UNTRACKED) throw new Error(`expected ${MODIFIED + DELETED + UNTRACKED} changes, got ${first.total}`);

const get: number[] = [];
const diff: number[] = [];
const pingLate: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
	let start = performance.now();
	const listing = client.ok({ type: "changes_get" }, 60_000);
	// A ping sent while the listing runs: its answer waits only if the event loop is held.
	await new Promise((resolve) => setTimeout(resolve, 5));
	const pingStart = performance.now();
	await pinger.ok({ type: "ping" });
	pingLate.push(performance.now() - pingStart);
	await listing;
	get.push(performance.now() - start);
	start = performance.now();
	await client.ok({ type: "changes_diff", path: "src/d7/f7.ts" });
	diff.push(performance.now() - start);
}
const idlePing: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
	const start = performance.now();
	await pinger.ok({ type: "ping" });
	idlePing.push(performance.now() - start);
}
client.close();
pinger.close();
await skiff.stop();
removeTempRepos();

const ms = (samples: number[]) => `${medianWithSpread(samples, 1, "p25–p75")} ms`;
const table = [
	`${MODIFIED} modified, ${DELETED} deleted and ${UNTRACKED} untracked files of 200 lines in a repository of ${formatNumber(TRACKED, 0)} files; ${ROUNDS} rounds, median (p25–p75).`,
	"",
	"| Measure | Value |",
	"|---|---|",
	`| \`changes_get\` round trip (${MODIFIED + DELETED + UNTRACKED} files: git diff, ls-files, a token per file, untracked lines counted) | ${ms(get)} |`,
	`| \`changes_diff\` of one modified file, round trip | ${ms(diff)} |`,
	`| \`ping\` from another client while a \`changes_get\` runs | ${ms(pingLate)} |`,
	`| \`ping\` with nothing else running | ${ms(idlePing)} |`,
].join("\n");
console.log(table);
if (options.write) writeBenchSection("changes", table);
