/**
 * The project files (`files_list`, `files_read`) against a real skiff whose working directory is a git
 * repository holding a 10,000-entry folder: the round trip of a listing's first and last page (names read and
 * sorted, the page's sizes, git check-ignore for the page), the same outside git (no git at all: what git's
 * answer costs), reading 1 MiB of text (the most sent) and a 50 MiB sparse file (one bounded read), and another
 * client's ping while four listings of the big folder are in flight, against an idle ping (how long the event
 * loop is held). Prints medians with p25–p75.
 * Usage: npm run build && node --import tsx bench/files.ts [-- --rounds 200 --write]
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, truncateSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { startSkiff, tempDir } from "../test/support/skiff-process.js";
import { pingsWhile } from "../test/support/pings-while.js";
import { TestClient } from "../test/support/ws-client.js";
import { writeBenchSection } from "./doc-section.js";
import { readBenchOptions } from "./options.js";
import { formatNumber, medianWithSpread, quantile } from "../stress/stats.js";

const options = readBenchOptions();
const ROUNDS = Math.min(options.rounds, 200);
const ENTRIES = 10_000;

function project(git: boolean): string {
	const dir = tempDir("skiff-bench-files-");
	if (git) {
		execFileSync("git", ["init", "-q"], { cwd: dir });
		writeFileSync(join(dir, ".gitignore"), "*.log\nnode_modules/\n");
	}
	mkdirSync(join(dir, "big"));
	for (let i = 0; i < ENTRIES; i++) {
		if (i % 100 === 0) mkdirSync(join(dir, "big", `d${String(i).padStart(5, "0")}`));
		else writeFileSync(join(dir, "big", `f${String(i).padStart(5, "0")}.${i % 3 === 0 ? "log" : "ts"}`), "x");
	}
	writeFileSync(join(dir, "text.ts"), "const line = 'the service reads config files and tests';\n".repeat(18_000).slice(0, 1024 * 1024));
	writeFileSync(join(dir, "huge.dat"), "");
	truncateSync(join(dir, "huge.dat"), 50 * 1024 * 1024);
	return dir;
}

async function trips(client: TestClient, command: Record<string, unknown>, rounds = ROUNDS): Promise<number[]> {
	await client.ok(command); // warm: the first answer loads what the command needs
	const samples: number[] = [];
	for (let i = 0; i < rounds; i++) {
		const start = performance.now();
		await client.ok(command);
		samples.push(performance.now() - start);
	}
	return samples;
}

/** Pings from `pinger` while `load` keeps four listings of the big folder in flight, `rounds` times over. */
async function pingsUnderLoad(load: TestClient, pinger: TestClient, rounds: number): Promise<number[]> {
	const samples: number[] = [];
	for (let i = 0; i < rounds; i++) {
		const listings = Array.from({ length: 4 }, () => load.ok({ type: "files_list", path: "big", limit: 1000 }));
		samples.push(...(await pingsWhile(pinger, Promise.all(listings))));
	}
	return samples;
}

const inGit = await startSkiff({ agentDir: tempDir(), cwd: project(true) });
const outside = await startSkiff({ agentDir: tempDir(), cwd: project(false) });
const client = await TestClient.connect(inGit.wsUrl);
const pinger = await TestClient.connect(inGit.wsUrl);
const plain = await TestClient.connect(outside.wsUrl);
const rows: Array<[string, string]> = [];
const row = (label: string, samples: number[]) => {
	rows.push([label, medianWithSpread(samples, 2, "p25–p75")]);
	console.log(`${label}: ${rows.at(-1)![1]}`);
};
try {
	row("files_list, first page of 500 of a 10,000-entry folder, in git (ms)", await trips(client, { type: "files_list", path: "big" }));
	row("files_list, last page of the same folder, in git (ms)", await trips(client, { type: "files_list", path: "big", offset: 9500 }));
	row("files_list, first page of the same folder, outside git (ms)", await trips(plain, { type: "files_list", path: "big" }));
	row("files_read, 1 MiB of text (the most sent) (ms)", await trips(client, { type: "files_read", path: "text.ts" }));
	row("files_read, a 50 MiB sparse file (one bounded read) (ms)", await trips(client, { type: "files_read", path: "huge.dat" }));
	row("ping from another client, idle (ms)", await trips(pinger, { type: "ping" }));
	const underLoad = await pingsUnderLoad(client, pinger, Math.max(5, ROUNDS / 10));
	row("ping from another client while 4 listings of 1,000 of the big folder run (ms)", underLoad);
	rows.push(["the same pings: p99 and slowest (ms)", `${formatNumber(quantile(underLoad, 0.99), 2)} and ${formatNumber(Math.max(...underLoad), 2)} (${underLoad.length} pings)`]);
	console.log(`${rows.at(-1)![0]}: ${rows.at(-1)![1]}`);
} finally {
	client.close();
	pinger.close();
	plain.close();
	await inGit.stop();
	await outside.stop();
}

if (options.write) {
	const table = [
		`Measured ${new Date().toISOString().slice(0, 10)} (load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores when it ended), ${ROUNDS} rounds each (pings under load: every ping sent while the listings ran, over ${Math.max(5, ROUNDS / 10)} rounds); median (p25–p75).`,
		"",
		"| metric | value |",
		"|---|---|",
		...rows.map(([label, value]) => `| ${label} | ${value} |`),
	].join("\n");
	writeBenchSection("files", table);
}
