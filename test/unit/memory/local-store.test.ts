import assert from "node:assert/strict";
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { test } from "node:test";
import { LocalMemoryStore, MAX_ENTRIES, MAX_STORE_BYTES, personaStorePath, projectStorePath } from "../../../src/features/memory/local-store.js";
import { createLocalMemoryTool } from "../../../src/features/memory/local-tool.js";
import { projectAnchor, projectDigest, projectLabel } from "../../../src/features/memory/project-identity.js";
import { turnsWhile } from "../../support/event-loop.js";
import { REPO_ROOT, tempDir } from "../../support/skiff-process.js";

test("namespaces: one per repository root (or directory), personas in their own root", () => {
	const agentDir = tempDir();
	const repo = tempDir();
	mkdirSync(join(repo, ".git"));
	mkdirSync(join(repo, "src", "deep"), { recursive: true });
	assert.equal(projectAnchor(join(repo, "src", "deep")), repo);
	assert.equal(projectStorePath(agentDir, join(repo, "src")), projectStorePath(agentDir, repo));
	assert.match(projectStorePath(agentDir, repo), new RegExp(`memory/${projectDigest(repo)}/entries\\.jsonl$`));
	assert.match(projectDigest(repo), /^[0-9a-f]{32}$/);
	const plain = tempDir();
	assert.equal(projectAnchor(plain), plain);
	assert.notEqual(projectStorePath(agentDir, plain), projectStorePath(agentDir, repo));
	assert.equal(personaStorePath("/p/reviewer"), "/p/reviewer/memory/entries.jsonl");
	assert.match(projectLabel("/x/weird name!@#"), /^weird-name-[0-9a-f]{12}$/);
	assert.match(projectLabel("/x/!!!"), /^unknown-[0-9a-f]{12}$/);
});

test("learn, recall, list and forget through the tool, with bounds and redaction", async () => {
	const store = new LocalMemoryStore(join(tempDir(), "memory", "entries.jsonl"));
	const tool = createLocalMemoryTool(() => store, () => "session-1");
	const learned = await tool.execute({ op: "learn", content: "release script lives in scripts/release.sh", tags: ["release", "Release", " ops "] }, undefined);
	assert.match(learned, /^Learned memory entry [0-9a-f]{32} \(1 stored\)\.$/);
	await tool.execute({ op: "learn", content: "the api key is sk-ant-api03-abcdefghijklmnopqrstu, keep it safe" }, undefined);
	const recalled = await tool.execute({ op: "recall", query: "release script" }, undefined);
	assert.match(recalled, /release script lives in scripts\/release\.sh/);
	assert.match(recalled, /session session-1 · tags: release, ops/);
	assert.match(await tool.execute({ op: "recall", query: "api key" }, undefined), /\[REDACTED\]/);
	assert.ok(!readFileSync(store.path, "utf8").includes("sk-ant-api03"), "secrets are never stored");
	assert.match(await tool.execute({ op: "recall", query: "zebra crossing" }, undefined), /No memory entries match "zebra crossing"/);
	assert.match(await tool.execute({ op: "recall", query: "SCRIPT" }, undefined), /release\.sh/);
	assert.match(await tool.execute({ op: "recall", query: "lease" }, undefined), /No memory entries match/, "terms match at word starts");
	const listed = await tool.execute({ op: "list", tag: "OPS" }, undefined);
	assert.equal(listed.split("\n").length, 2);
	const id = (await store.list())[0]!.id;
	assert.equal(await tool.execute({ op: "forget", id }, undefined), `Forgot memory entry ${id}.`);
	assert.equal(await tool.execute({ op: "forget", id }, undefined), `No memory entry with id ${id}.`);
	await assert.rejects(tool.execute({ op: "learn", content: "  " }, undefined), /content is required/);
	await assert.rejects(tool.execute({ op: "learn", content: "x".repeat(1024 * 1024 + 1) }, undefined), /exceeds the 1 MiB limit/);
	await assert.doesNotReject(tool.execute({ op: "learn", content: "y".repeat(1024 * 1024) }, undefined));
	await assert.rejects(tool.execute({ op: "recall", query: " " }, undefined), /query is required/);
	await assert.rejects(tool.execute({ op: "forget", id: "" }, undefined), /id is required/);
	const big = await tool.execute({ op: "recall", query: "y" }, undefined);
	assert.ok(Buffer.byteLength(big) <= 32 * 1024);
});

test("limits: 20 tags, 100 entries evicting the oldest but never the one just learned, recall count 10 clamped to 50", async () => {
	let clock = 1_000_000;
	const store = new LocalMemoryStore(join(tempDir(), "entries.jsonl"), () => clock++);
	const { entry } = await store.learn("tagged", Array.from({ length: 30 }, (_, i) => `tag${i}`), "s");
	assert.equal(entry.tags.length, 20);
	for (let i = 0; i < MAX_ENTRIES + 9; i++) await store.learn(`note ${i} common`, [], "s");
	assert.equal((await store.list()).length, MAX_ENTRIES);
	assert.ok(!(await store.list()).some((e) => e.content === "tagged"), "the oldest was evicted");
	clock = 0; // a clock that went backwards: the new entry is the "oldest" but must survive
	const late = await store.learn("learned with a skewed clock", [], "s");
	assert.ok((await store.list()).some((e) => e.id === late.entry.id));
	assert.equal((await store.list()).length, MAX_ENTRIES);
	assert.equal((await store.recall("common")).length, 10);
	assert.equal((await store.recall("common", 500)).length, 50);
	assert.equal((await store.recall("common", 0)).length, 1);
	assert.equal((await store.recall("common", -5)).length, 1);
	assert.equal((await store.recall("common", null)).length, 10);
});

test("unreadable lines are kept, not dropped", async () => {
	const path = join(tempDir(), "entries.jsonl");
	writeFileSync(path, 'not json\n{"id":"a1","content":"kept","ts":5,"session":"s"}\n');
	const store = new LocalMemoryStore(path);
	await store.learn("new one", [], "s");
	const text = readFileSync(path, "utf8");
	assert.match(text, /not json/);
	assert.equal((await store.list()).length, 2);
});

/** A process that learns `count` notes into the store at `path`, printing one line after each. */
const WRITER = `
import { LocalMemoryStore } from ${JSON.stringify(join(REPO_ROOT, "src/features/memory/local-store.ts"))};
const [path, name, count] = process.argv.slice(2);
const store = new LocalMemoryStore(path);
for (let i = 0; i < Number(count); i++) {
	await store.learn(name + " note " + i, [name], "proc");
	process.stdout.write("learned\\n");
}
`;

function runWriter(path: string, name: string, count: number, script: string): ChildProcessByStdio<null, Readable, null> {
	return spawn(process.execPath, ["--import", "tsx", script, path, name, String(count)], { stdio: ["ignore", "pipe", "ignore"], cwd: REPO_ROOT });
}

/** Resolves once `writer` has reported `count` notes learned (it goes on writing). */
function learned(writer: ChildProcessByStdio<null, Readable, null>, count: number): Promise<void> {
	return new Promise((resolve, reject) => {
		let seen = 0;
		writer.stdout.setEncoding("utf8");
		writer.stdout.on("data", (chunk: string) => {
			seen += chunk.split("\n").length - 1;
			if (seen >= count) resolve();
		});
		writer.on("close", () => reject(new Error(`the writer exited after ${seen} notes, before ${count}`)));
	});
}

test("two processes writing the same store at once lose nothing", async () => {
	const dir = tempDir();
	const script = join(dir, "writer.mts");
	writeFileSync(script, WRITER);
	const path = join(dir, "store", "entries.jsonl");
	const writers = [runWriter(path, "alpha", 40, script), runWriter(path, "beta", 40, script)];
	await Promise.all(writers.map((w) => learned(w, 40)));
	const store = new LocalMemoryStore(path);
	assert.equal((await store.list("alpha")).length, 40);
	assert.equal((await store.list("beta")).length, 40);
});

test("a crash in the middle of writing leaves a readable store, and the next write proceeds", async () => {
	const dir = tempDir();
	const script = join(dir, "writer.mts");
	writeFileSync(script, WRITER);
	const path = join(dir, "store", "entries.jsonl");
	for (let attempt = 0; attempt < 3; attempt++) {
		const writer = runWriter(path, `crash${attempt}`, 10_000, script);
		const exited = new Promise((resolve) => writer.on("exit", resolve));
		// Killed while it keeps writing, after a different number of notes each time.
		await learned(writer, 5 + attempt * 7);
		writer.kill("SIGKILL");
		await exited;
		const text = readFileSync(path, "utf8");
		for (const line of text.split("\n").filter(Boolean)) assert.doesNotThrow(() => JSON.parse(line), "every line is whole");
	}
	const store = new LocalMemoryStore(path);
	const before = (await store.list()).length;
	assert.ok(before > 0);
	await store.learn("after the crashes", [], "s"); // a lock left by the killed writer does not block this
	assert.ok((await store.list()).some((e) => e.content === "after the crashes"));
});

test("inspector helpers: search without recall's cap of 50, forgetMany in one write", async () => {
	const store = new LocalMemoryStore(join(tempDir(), "memory", "entries.jsonl"));
	const ids: string[] = [];
	for (let i = 0; i < 60; i++) ids.push((await store.learn(`note number ${i} about search`, [], "s")).entry.id);
	assert.equal((await store.search("search", 100)).length, 60);
	assert.equal((await store.recall("search", 100)).length, 50, "recall stays capped");
	assert.deepEqual(await store.search("   ", 10), []);
	const result = await store.forgetMany([ids[0]!, ids[1]!, "absent", ids[0]!]);
	assert.deepEqual(result.forgotten.sort(), [ids[0]!, ids[1]!].sort());
	assert.deepEqual(result.missing, ["absent"]);
	assert.equal((await store.list()).length, 58);
});

test("a store file larger than MAX_STORE_BYTES is refused, naming the file and the bound, and never parsed", async () => {
	const path = join(tempDir(), "entries.jsonl");
	writeFileSync(path, "");
	truncateSync(path, MAX_STORE_BYTES + 1); // sparse: no disk used
	const store = new LocalMemoryStore(path);
	const refusal = { message: `memory store is too large to read: ${path} holds ${MAX_STORE_BYTES + 1} bytes, more than the 16 MiB limit` };
	await assert.rejects(store.read(), refusal);
	await assert.rejects(store.list(), refusal);
	await assert.rejects(store.recall("anything"), refusal);
	await assert.rejects(store.learn("new", [], "s"), refusal, "a change refuses it too, and writes nothing");
	await assert.rejects(store.forget("x"), refusal);
	assert.equal(statSync(path).size, MAX_STORE_BYTES + 1);
	assert.equal(store.readableNow(), false);
	assert.equal(new LocalMemoryStore(join(tempDir(), "missing.jsonl")).readableNow(), true, "a missing store is an empty one");
	const folder = join(tempDir(), "entries.jsonl");
	mkdirSync(folder);
	assert.equal(new LocalMemoryStore(folder).readableNow(), false);
	await assert.rejects(new LocalMemoryStore(folder).read(), { message: `memory store cannot be read: ${folder} is not a regular file (a directory)` });
});

test("learn keeps the file within MAX_STORE_BYTES: the oldest entries go sooner, the lines that are not entries stay", async () => {
	const path = join(tempDir(), "entries.jsonl");
	const junk = "j".repeat(MAX_STORE_BYTES - 2.5 * 1024 * 1024 - 1);
	writeFileSync(path, `${junk}\n`);
	let clock = 1;
	const store = new LocalMemoryStore(path, () => clock++);
	for (const letter of ["a", "b", "c"]) await store.learn(letter.repeat(1024 * 1024), [], "s");
	assert.deepEqual((await store.list()).map((e) => e.content[0]), ["c", "b"], "the oldest made room");
	assert.ok(statSync(path).size <= MAX_STORE_BYTES);
	assert.equal((await store.read()).unreadable.length, 1);
	writeFileSync(path, `${junk}${"j".repeat(2 * 1024 * 1024)}\n`);
	await assert.rejects(store.learn("d".repeat(1024 * 1024), [], "s"), new RegExp(`^Error: memory entry does not fit: the store .*entries\\.jsonl would grow past the 16 MiB limit$`));
	assert.equal(statSync(path).size, MAX_STORE_BYTES - 0.5 * 1024 * 1024, "nothing was written");
});

test("reads are asynchronous, and an unchanged store file is not read again", async () => {
	const path = join(tempDir(), "entries.jsonl");
	const store = new LocalMemoryStore(path);
	for (let i = 0; i < 50; i++) await store.learn(`note ${i} ${"z".repeat(100_000)}`, ["bulk"], "s");
	const probe = await open(path, "r");
	const prototype = Object.getPrototypeOf(probe) as { readFile: (...args: unknown[]) => Promise<unknown> };
	await probe.close();
	const readFile = prototype.readFile;
	let reads = 0;
	prototype.readFile = function (this: unknown, ...args: unknown[]) {
		reads++;
		return readFile.apply(this, args);
	};
	try {
		const first = await turnsWhile(store.read());
		assert.ok(first.turns > 0, "the event loop turned while the store was read");
		assert.equal(first.value.entries.length, 50);
		assert.equal(reads, 1);
		assert.equal((await store.list("bulk")).length, 50);
		assert.equal((await store.recall("note 7")).length, 10);
		assert.equal(new LocalMemoryStore(path).readableNow(), true);
		assert.equal(reads, 1, "an unchanged file is parsed once, whichever store object asks");
		(await store.read()).entries.length = 0;
		assert.equal((await store.read()).entries.length, 50, "callers get copies");
		appendFileSync(path, `${JSON.stringify({ id: "other-process", content: "written elsewhere", ts: 1, session: "x" })}\n`);
		assert.ok((await store.list()).some((e) => e.id === "other-process"), "a changed file is read again");
		assert.equal(reads, 2);
		await store.forget("other-process");
		assert.equal((await store.list()).length, 50);
		assert.equal(reads, 4, "a change reads the file under its lock, then the next read reads what it wrote");
	} finally {
		prototype.readFile = readFile;
	}
});
