import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { FileExistsError, PRIVATE_FILE_MODE, writeFileAtomically, writeFileAtomicallyAsync } from "../../../src/shared/atomic-write.js";
import { turnsWhile } from "../../support/event-loop.js";
import { tempDir } from "../../support/skiff-process.js";

const modeOf = (path: string) => statSync(path).mode & 0o777;

test("the content is written whole, private by default, and replaces an existing file with the mode asked for", () => {
	const dir = tempDir();
	const path = join(dir, "record.json");
	const text = `${"é".repeat(100_000)}\n`;
	writeFileAtomically(path, text);
	assert.equal(readFileSync(path, "utf8"), text);
	assert.equal(modeOf(path), PRIVATE_FILE_MODE);

	writeFileAtomically(path, "second\n", { mode: 0o400 });
	assert.equal(readFileSync(path, "utf8"), "second\n");
	assert.equal(modeOf(path), 0o400);
	writeFileAtomically(path, "");
	assert.equal(readFileSync(path, "utf8"), "");
	assert.deepEqual(readdirSync(dir), ["record.json"], "no temporary file is left");
});

test("the folder is created only when asked, with the mode asked for", () => {
	const dir = tempDir();
	const path = join(dir, "a", "b", "record.json");
	assert.throws(() => writeFileAtomically(path, "x"), (error: NodeJS.ErrnoException) => error.code === "ENOENT");
	assert.deepEqual(readdirSync(dir), []);

	writeFileAtomically(path, "x", { createFolder: { mode: 0o700 } });
	assert.equal(readFileSync(path, "utf8"), "x");
	assert.equal(modeOf(join(dir, "a")), 0o700);
	assert.equal(modeOf(join(dir, "a", "b")), 0o700);
});

test("a write that fails throws the system's error, leaves the target as it was and no temporary file", () => {
	const dir = tempDir();
	// The target's parent is a file: the temporary file cannot even be created.
	const parent = join(dir, "not-a-folder");
	writeFileSync(parent, "kept");
	assert.throws(() => writeFileAtomically(join(parent, "record.json"), "new"), (error: NodeJS.ErrnoException) => error.code === "ENOTDIR");
	assert.throws(
		() => writeFileAtomically(join(parent, "record.json"), "new", { createFolder: {} }),
		(error: NodeJS.ErrnoException) => error.code === "EEXIST" || error.code === "ENOTDIR",
	);
	assert.equal(readFileSync(parent, "utf8"), "kept");

	// The target is a folder with something in it: the temporary file is written, the rename fails.
	const target = join(dir, "busy");
	mkdirSync(target);
	writeFileSync(join(target, "inside"), "kept");
	assert.throws(() => writeFileAtomically(target, "new"), (error: NodeJS.ErrnoException) => typeof error.code === "string");
	assert.deepEqual(readdirSync(target), ["inside"]);
	assert.equal(readFileSync(join(target, "inside"), "utf8"), "kept");
	assert.deepEqual(readdirSync(dir).sort(), ["busy", "not-a-folder"], "no temporary file is left");
});

test("an exclusive write creates a new file but never replaces one", () => {
	const dir = tempDir();
	const path = join(dir, "job.json");
	writeFileAtomically(path, "first", { exclusive: true });
	assert.equal(readFileSync(path, "utf8"), "first");
	assert.throws(
		() => writeFileAtomically(path, "second", { exclusive: true }),
		(error: unknown) => error instanceof FileExistsError && error.code === "EEXIST" && error.path === path,
	);
	assert.equal(readFileSync(path, "utf8"), "first");
	assert.deepEqual(readdirSync(dir), ["job.json"], "no temporary file is left");
});

test("writers in one process (same pid, several threads) replacing one file never share a temporary file", async () => {
	const dir = tempDir();
	const path = join(dir, "shared.json");
	const writers = 4;
	const rounds = 100;
	const contentOf = (writer: number, round: number) => `${writer}:${round}:${"x".repeat(32 * 1024)}\n`;
	// All threads start writing together: each counts itself in, then waits for the others (no timing involved).
	const arrived = new Int32Array(new SharedArrayBuffer(4));
	const helper = pathToFileURL(join(import.meta.dirname, "../../../src/shared/atomic-write.ts")).href;
	const code = `
		const { parentPort, workerData } = require("node:worker_threads");
		import(workerData.tsx)
			.then((tsx) => { tsx.register(); return import(workerData.helper); })
			.then(({ writeFileAtomically }) => {
				const { arrived, writers, writer, rounds, path } = workerData;
				Atomics.add(arrived, 0, 1);
				for (let seen = Atomics.load(arrived, 0); seen < writers; seen = Atomics.load(arrived, 0)) Atomics.wait(arrived, 0, seen);
				Atomics.notify(arrived, 0);
				for (let round = 0; round < rounds; round++) writeFileAtomically(path, writer + ":" + round + ":" + "x".repeat(32 * 1024) + "\\n");
				parentPort.postMessage("done");
			})
			.catch((error) => parentPort.postMessage(String(error && error.code) + " " + String(error && error.message)));
	`;
	const results = await Promise.all(
		Array.from({ length: writers }, (_, writer) => {
			const worker = new Worker(code, { eval: true, workerData: { tsx: import.meta.resolve("tsx/esm/api"), helper, arrived, writers, writer, rounds, path } });
			return new Promise<string>((resolve, reject) => {
				worker.once("message", (message: string) => {
					resolve(message);
					void worker.terminate();
				});
				worker.once("error", reject);
			});
		}),
	);
	assert.deepEqual(results, Array(writers).fill("done"));
	const finals = Array.from({ length: writers }, (_, writer) => contentOf(writer, rounds - 1));
	assert.ok(finals.includes(readFileSync(path, "utf8")), "the file holds one writer's last content, whole");
	assert.deepEqual(readdirSync(dir), ["shared.json"], "no temporary file is left");
});

test("the asynchronous write replaces a file whole, leaves the event loop free meanwhile, and fails as the other does", async () => {
	const dir = tempDir();
	const path = join(dir, "store.jsonl");
	writeFileSync(path, "old\n");
	const big = `${"memory entry ".repeat(800_000)}\n`; // about 10 MB, a store near its bound
	const { turns } = await turnsWhile(writeFileAtomicallyAsync(path, big, { mode: 0o600 }));
	assert.ok(turns > 0, "the loop turned while the file was written and flushed");
	assert.equal(readFileSync(path, "utf8"), big);
	assert.equal(modeOf(path), 0o600);
	await writeFileAtomicallyAsync(join(dir, "a", "b.json"), "made\n", { createFolder: { mode: 0o700 } });
	assert.equal(readFileSync(join(dir, "a", "b.json"), "utf8"), "made\n");

	const parent = join(dir, "not-a-folder");
	writeFileSync(parent, "kept");
	await assert.rejects(writeFileAtomicallyAsync(join(parent, "x.json"), "new"), (error: NodeJS.ErrnoException) => error.code === "ENOTDIR");
	const target = join(dir, "busy");
	mkdirSync(target);
	writeFileSync(join(target, "inside"), "kept");
	await assert.rejects(writeFileAtomicallyAsync(target, "new"), (error: NodeJS.ErrnoException) => typeof error.code === "string");
	assert.deepEqual(readdirSync(dir).sort(), ["a", "busy", "not-a-folder", "store.jsonl"], "no temporary file is left");
});
