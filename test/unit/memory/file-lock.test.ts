/** The store's lock: taking over a dead owner's lock never lets two writers in at once. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { linkSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { setImmediate as yieldToEvents } from "node:timers/promises";
import { LocalMemoryStore } from "../../../src/features/memory/local-store.js";
import { REPO_ROOT, tempDir } from "../../support/skiff-process.js";

const WRITER = `
import { LocalMemoryStore } from ${JSON.stringify(join(REPO_ROOT, "src/features/memory/local-store.ts"))};
const [path, name, count] = process.argv.slice(2);
const store = new LocalMemoryStore(path);
for (let i = 0; i < Number(count); i++) await store.learn(name + " note " + i, [name], "proc");
`;

/** A pid no process has (above the kernel's pid limit), as left behind by a crashed owner. */
const DEAD_PID = 999_999_999;

test("processes learning while a dead owner's lock keeps reappearing lose no entry", async () => {
	const dir = tempDir();
	const script = join(dir, "writer.mts");
	writeFileSync(script, WRITER);
	const path = join(dir, "store", "entries.jsonl");
	mkdirSync(join(dir, "store"));
	const stale = join(dir, "stale-lock");
	writeFileSync(stale, `${DEAD_PID} 0000000000000000\n`);
	const names = ["alpha", "beta", "gamma", "delta"];
	const writers = names.map((name) =>
		spawn(process.execPath, ["--import", "tsx", script, path, name, "25"], { stdio: "ignore", cwd: REPO_ROOT }),
	);
	let running = writers.length;
	const finished = Promise.all(writers.map((w) => new Promise((resolve) => w.on("exit", () => resolve(running--)))));
	let planted = 0;
	while (running > 0) {
		// Whenever the lock is free, a crashed owner's lock appears in its place.
		try {
			linkSync(stale, `${path}.lock`);
			planted++;
		} catch {
			// held by a writer right now
		}
		await yieldToEvents();
	}
	await finished;
	rmSync(`${path}.lock`, { force: true });
	const store = new LocalMemoryStore(path);
	assert.ok(planted >= 3, `stale locks planted: ${planted} (the takeover happened repeatedly)`);
	for (const name of names) assert.equal((await store.list(name)).length, 25, `no entry of ${name} lost`);
});
