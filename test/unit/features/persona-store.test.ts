/**
 * The persona store off the event loop: purge removes a whole folder asynchronously, a run's transcript is
 * archived in the background (whole or not at all) and what reads the sessions waits for it, persona_list and
 * persona_get read asynchronously, and the synchronous catalog reads a persona.md again only once it changed.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs, { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import { PersonaStore } from "../../../src/features/personas/persona-store.js";
import { CodedError } from "../../../src/shared/errors.js";
import { turnsWhile } from "../../support/event-loop.js";
import { tempDir } from "../../support/skiff-process.js";

const definition = (name: string, description = `${name} persona`) => `---\nname: ${name}\ndescription: ${description}\n---\nYou are ${name}.\n`;
const message = (role: string, text: string) => JSON.stringify({ type: "message", message: { role, content: text } });

function store(options: { stopping?: () => boolean } = {}) {
	const agentDir = tempDir();
	const personas = new PersonaStore({ agentDir, trusted: () => false, knownTools: ["read"], ...options });
	return { agentDir, personas, root: (name: string) => join(agentDir, "personas", name), cwd: tempDir() };
}

/**
 * Counts fs.readFileSync calls on files whose path ends with `suffix` while `body` runs (the ES module bindings
 * too), whether read by path or through a descriptor fs.openSync gave for such a path.
 */
async function countingReads<T>(suffix: string, body: (count: () => number) => Promise<T>): Promise<T> {
	const originalRead = fs.readFileSync;
	const originalOpen = fs.openSync;
	const descriptors = new Set<number>();
	let count = 0;
	fs.openSync = ((path: unknown, ...rest: unknown[]) => {
		const fd = (originalOpen as (...args: unknown[]) => number)(path, ...rest);
		if (String(path).endsWith(suffix)) descriptors.add(fd);
		else descriptors.delete(fd);
		return fd;
	}) as typeof fs.openSync;
	fs.readFileSync = ((path: unknown, ...rest: unknown[]) => {
		if (typeof path === "number" ? descriptors.has(path) : String(path).endsWith(suffix)) count++;
		return (originalRead as (...args: unknown[]) => unknown)(path, ...rest);
	}) as typeof fs.readFileSync;
	syncBuiltinESMExports();
	try {
		return await body(() => count);
	} finally {
		fs.readFileSync = originalRead;
		fs.openSync = originalOpen;
		syncBuiltinESMExports();
	}
}

test("persona_purge removes a folder of thousands of sessions asynchronously", async () => {
	const { personas, root, cwd } = store();
	await personas.create("keeper", undefined, cwd);
	mkdirSync(join(root("keeper"), "sessions"));
	for (let i = 0; i < 3000; i++) writeFileSync(join(root("keeper"), "sessions", `2024-01-01T00-00-00-${String(i).padStart(4, "0")}Z_job-${i}.jsonl`), `${message("user", `run ${i}`)}\n`);
	assert.equal((await personas.get("keeper", cwd)).sessionCount, 3000);
	const { turns } = await turnsWhile(personas.purge("keeper", cwd));
	assert.ok(turns > 0, "the event loop turned while the folder was removed");
	assert.ok(!existsSync(root("keeper")));
	await assert.rejects(personas.purge("keeper", cwd), (error: CodedError) => error.code === "not_found");
});

test("a run's transcript is archived in the background, whole; continuity, rows and purge wait for it", async () => {
	const { personas, root, cwd } = store();
	await personas.create("scribe", undefined, cwd);
	const transcript = join(tempDir(), "run.jsonl");
	const filler = JSON.stringify({ type: "message", message: { role: "toolResult", content: "x".repeat(1024 * 1024) } });
	writeFileSync(transcript, `${Array.from({ length: 12 }, () => filler).join("\n")}\n${message("user", "ARCHIVED-ASK")}\n`);

	const archiving = personas.archive(root("scribe"), "job-1", transcript);
	assert.match((await personas.continuity(root("scribe")))!, /user: ARCHIVED-ASK$/, "continuity waits for the archive being written");
	assert.equal((await personas.get("scribe", cwd)).sessionCount, 1, "so does the row");
	await archiving;
	const names = readdirSync(join(root("scribe"), "sessions"));
	assert.equal(names.length, 1, "no temporary file is left");
	assert.match(names[0]!, /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_job-1\.jsonl$/);
	const archived = join(root("scribe"), "sessions", names[0]!);
	assert.ok(readFileSync(archived).equals(readFileSync(transcript)), "a byte-for-byte copy");
	assert.equal(statSync(archived).mode & 0o777, 0o600);

	const second = await turnsWhile(personas.archive(root("scribe"), "job-2", transcript));
	assert.ok(second.turns > 0, "the event loop turned while a 12 MiB transcript was copied");

	await personas.archive(root("scribe"), "job-3", join(tempDir(), "never-recorded.jsonl"));
	assert.equal(readdirSync(join(root("scribe"), "sessions")).length, 2, "nothing recorded, nothing archived");

	const purging = personas.archive(root("scribe"), "job-4", transcript);
	await personas.purge("scribe", cwd);
	await purging;
	assert.ok(!existsSync(root("scribe")), "purge waited for the archive: nothing came back after it");
});

test("an archive that cannot be written fails with io_error naming it and leaves no temporary file", async () => {
	const { personas, root, cwd } = store();
	await personas.create("blocked", undefined, cwd);
	writeFileSync(join(root("blocked"), "sessions"), "a file where the folder should be");
	const transcript = join(tempDir(), "run.jsonl");
	writeFileSync(transcript, `${message("user", "hello")}\n`);
	await assert.rejects(personas.archive(root("blocked"), "job-1", transcript), (error: CodedError) => {
		assert.equal(error.code, "io_error");
		assert.match(error.message, /sessions\/.*_job-1\.jsonl could not be written \(\w+\); it was left as it was/);
		return true;
	});
	assert.deepEqual(readdirSync(root("blocked")).sort(), ["persona.md", "sessions"]);
});

// A FIFO in place of the transcript used to be copied with copyFile, which waits for a writer for ever: the
// timeout turns that wait into a failure instead of a test run that never ends.
test("a transcript that is not a regular file, or a sessions folder that is a link, is refused naming it", { timeout: 20_000 }, async () => {
	for (const stopping of [false, true]) {
		const { personas, root, cwd } = store({ stopping: () => stopping });
		await personas.create("piped", undefined, cwd);
		const fifo = join(tempDir(), "run.jsonl");
		execFileSync("mkfifo", [fifo]);
		await assert.rejects(personas.archive(root("piped"), "job-1", fifo), (error: CodedError) => {
			assert.equal(error.code, "io_error");
			assert.equal(error.message, `${fifo} is not a regular file (a FIFO); the run's transcript was not archived`);
			return true;
		});
		const transcript = join(tempDir(), "run.jsonl");
		writeFileSync(transcript, `${message("user", "hello")}\n`);
		const elsewhere = tempDir();
		symlinkSync(elsewhere, join(root("piped"), "sessions"));
		await assert.rejects(personas.archive(root("piped"), "job-2", transcript), /sessions is a symbolic link \(not followed\); the run's transcript was not archived/);
		assert.deepEqual(readdirSync(elsewhere), [], "nothing was written through the link");
	}
});

test("while the service stops, the transcript is archived before archive returns", async () => {
	const { personas, root, cwd } = store({ stopping: () => true });
	await personas.create("last", undefined, cwd);
	const transcript = join(tempDir(), "run.jsonl");
	writeFileSync(transcript, `${message("assistant", "interrupted")}\n`);
	const archiving = personas.archive(root("last"), "job-9", transcript);
	assert.equal(readdirSync(join(root("last"), "sessions")).length, 1, "written at once: the process exits right after");
	await archiving;
});

test("persona_list and persona_get read asynchronously; the catalog reads persona.md again only once it changed", async () => {
	const { agentDir, personas, root, cwd } = store();
	await personas.create("good", definition("good", "First words"), cwd);
	await personas.create("nomemory", undefined, cwd);
	mkdirSync(join(root("nomemory"), "memory", "entries.jsonl"), { recursive: true }); // a folder: it cannot be read
	await personas.create("broken", undefined, cwd);
	writeFileSync(join(root("broken"), "persona.md"), definition("someone-else"));
	await personas.create("removed", undefined, cwd);
	await personas.remove("removed", cwd);
	const elsewhere = tempDir();
	writeFileSync(join(elsewhere, "persona.md"), definition("linked"));
	symlinkSync(elsewhere, join(agentDir, "personas", "linked"));

	const listed = await turnsWhile(personas.list(cwd));
	assert.ok(listed.turns > 0, "the event loop turned while the personas were read");
	assert.deepEqual(
		listed.value.map((row) => [row.name, row.defined, row.error ?? row.description]),
		[
			["broken", true, "its name (someone-else) is not its folder's (broken)"],
			["good", true, "First words"],
			["linked", false, "its folder is a symbolic link (refused)"],
			["nomemory", true, "its memory file cannot be read"],
			["removed", false, undefined],
		],
	);
	const got = await turnsWhile(personas.get("good", cwd));
	assert.ok(got.turns > 0);
	assert.equal(got.value.content, definition("good", "First words"));

	await countingReads("persona.md", async (reads) => {
		const expected = [
			{ name: "broken", source: "persona", file: "broken/persona.md", error: "its name (someone-else) is not its folder's (broken)" },
			{ name: "good", description: "First words", source: "persona" },
			{ name: "nomemory", source: "persona", file: "nomemory/persona.md", error: "its memory file cannot be read" },
		];
		const first = personas.catalog(cwd);
		assert.deepEqual(
			first.map((e) => ("error" in e && e.error !== undefined ? e : { name: e.name, description: (e as { description?: string }).description, source: e.source })),
			expected,
		);
		const readsAfterFirst = reads();
		assert.deepEqual(personas.catalog(cwd), first);
		assert.equal(reads(), readsAfterFirst, "unchanged persona.md files are not read again");
		assert.equal(readsAfterFirst, 0, "list already read them");

		await personas.edit("good", definition("good", "Second words"), cwd);
		writeFileSync(join(root("broken"), "persona.md"), definition("broken", "Mended"));
		const mended = personas.catalog(cwd).find((e) => e.name === "broken") as { description?: string; error?: string };
		assert.deepEqual([mended.description, mended.error], ["Mended", undefined], "a changed file is read again");
		assert.equal(reads(), 1);
		const edited = personas.catalog(cwd).find((e) => e.name === "good") as { description?: string };
		assert.equal(edited.description, "Second words");
		assert.equal(personas.resolve("good", cwd)?.definition.description, "Second words");
	});
	assert.throws(() => personas.resolve("nomemory", cwd), /Persona nomemory cannot be run: its memory file cannot be read/);
	assert.throws(() => personas.resolve("removed", cwd), (error: CodedError) => error.code === "not_found");
	assert.throws(() => personas.resolve("linked", cwd), /cannot be run: its folder is a symbolic link/);
});
