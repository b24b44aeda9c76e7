/**
 * Personas against the real service and the fake model: create from the template, edit with validation, runs
 * as jobs with persona-local memory (two personas never share it) and continuity from archived runs, remove
 * and purge, and refusals (bad names, mismatched names, symbolic-link roots) that leave nothing on disk.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
let skiff: SkiffProcess;
let agentDir: string;
let client: TestClient;

const call = (tool: string, args: unknown) => `CALL ${tool} ${JSON.stringify(args)}`;
const root = (name: string) => join(agentDir, "personas", name);

before(async () => {
	model = await startFakeOpenAi();
	agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model"] });
	client = await TestClient.connect(skiff.wsUrl);
});

after(async () => {
	client?.close();
	await skiff?.stop();
	await model?.close();
});

/** Runs a persona on a task and waits for its job to finish. */
async function run(name: string, task: string): Promise<any> {
	const from = client.events.length;
	const { job } = await client.ok({ type: "persona_run", name, task });
	const done = await client.waitForEvent(
		(e) => e.type === "job_updated" && e.job.id === job.id && ["completed", "failed", "cancelled"].includes(e.job.status),
		30_000,
		from,
	);
	return done.job;
}

function systemPromptOf(mark: string): string {
	const request = model.requests.find((r) => {
		const first = r.body.messages.find((m: any) => m.role === "user");
		return JSON.stringify(first?.content ?? "").includes(mark);
	});
	assert.ok(request, `a request for ${mark}`);
	return JSON.stringify(request.body.messages[0].content);
}

test("a persona created from the template is listed, read and edited with validation", async () => {
	const created = await client.ok({ type: "persona_create", name: "mentor" });
	assert.deepEqual(created, { name: "mentor", scope: "user", defined: true, description: "mentor persona", memoryEntries: 0, sessionCount: 0 });
	const got = await client.ok({ type: "persona_get", name: "mentor" });
	assert.match(got.content, /^---\nname: mentor\n/);
	const content = "---\nname: mentor\ndescription: Guides and remembers\n---\nYou are the mentor. MENTOR-PROMPT-MARK\n";
	assert.equal((await client.ok({ type: "persona_edit", name: "mentor", content })).description, "Guides and remembers");
	const renamed = await client.request({ type: "persona_edit", name: "mentor", content: content.replace("name: mentor", "name: other") });
	assert.equal(renamed.code, "invalid_command");
	assert.match(renamed.error!, /name \(other\) is not its folder's \(mentor\)/);
	assert.equal(readFileSync(join(root("mentor"), "persona.md"), "utf8"), content, "a refused edit changes nothing");
	const { personas } = await client.ok({ type: "persona_list" });
	assert.deepEqual(personas.map((p: any) => p.name), ["mentor"]);
	assert.ok(!JSON.stringify(personas).includes(agentDir), "no absolute paths");
});

test("bad names, mismatched names, reserved names and duplicates are refused and nothing is created", async () => {
	for (const name of ["../escape", "a/b", "..", "has space", "x".repeat(65)]) {
		const refused = await client.request({ type: "persona_create", name });
		assert.equal(refused.code, "invalid_command", name);
		assert.match(refused.error!, /Invalid persona name/);
	}
	const mismatched = await client.request({ type: "persona_create", name: "critic", content: "---\nname: someone\ndescription: d\n---\nbody" });
	assert.equal(mismatched.code, "invalid_command");
	assert.equal((await client.request({ type: "persona_create", name: "task" })).code, "invalid_command");
	assert.equal((await client.request({ type: "persona_create", name: "mentor" })).code, "conflict");
	assert.deepEqual(readdirSync(join(agentDir, "personas")), ["mentor"], "nothing half-created");
	assert.equal((await client.request({ type: "persona_get", name: "nobody" })).code, "not_found");
	assert.equal((await client.request({ type: "persona_run", name: "nobody", task: "x" })).code, "not_found");
	assert.equal((await client.request({ type: "persona_remove", name: "mentor" })).code, "invalid_command", "confirm is required");
});

test("a symlinked persona root is listed with its error and refused", async () => {
	const elsewhere = tempDir();
	writeFileSync(join(elsewhere, "persona.md"), "---\nname: linked\ndescription: d\n---\nbody\n");
	symlinkSync(elsewhere, root("linked"));
	const { personas } = await client.ok({ type: "persona_list" });
	assert.match(personas.find((p: any) => p.name === "linked").error, /symbolic link/);
	assert.equal((await client.request({ type: "persona_run", name: "linked", task: "x" })).code, "invalid_command");
	assert.equal((await client.request({ type: "persona_edit", name: "linked", content: "x" })).code, "forbidden");
	assert.equal((await client.request({ type: "persona_purge", name: "linked", confirm: true })).code, "forbidden");
	assert.ok(existsSync(join(elsewhere, "persona.md")), "nothing behind the link was touched");
});

test("persona runs keep their own memory and carry continuity from earlier runs", async () => {
	await client.ok({ type: "persona_create", name: "critic", content: "---\nname: critic\ndescription: Finds faults\n---\nYou are the critic.\n" });
	const first = await run("mentor", `FIRST-RUN-MARK\n${call("memory", { op: "learn", content: "mentor fact" })}\n${call("yield", { text: "mentor done" })}`);
	assert.equal(first.status, "completed");
	assert.equal(first.persona, true);
	assert.equal(first.agent, "mentor");
	const critic = await run("critic", `CRITIC-RUN\n${call("memory", { op: "learn", content: "critic fact" })}`);
	assert.equal(critic.status, "completed");

	const mentorMemory = readFileSync(join(root("mentor"), "memory", "entries.jsonl"), "utf8");
	const criticMemory = readFileSync(join(root("critic"), "memory", "entries.jsonl"), "utf8");
	assert.match(mentorMemory, /mentor fact/);
	assert.doesNotMatch(mentorMemory, /critic fact/);
	assert.match(criticMemory, /critic fact/);
	assert.doesNotMatch(criticMemory, /mentor fact/);
	assert.match(systemPromptOf("FIRST-RUN-MARK"), /MENTOR-PROMPT-MARK/);
	assert.doesNotMatch(systemPromptOf("FIRST-RUN-MARK"), /previous runs/, "a first run has no continuity");

	await run("mentor", "SECOND-RUN-MARK");
	const second = systemPromptOf("SECOND-RUN-MARK");
	assert.match(second, /Your previous runs/);
	assert.match(second, /FIRST-RUN-MARK/);
	assert.doesNotMatch(second, /CRITIC-RUN/, "continuity is the persona's own");
	const row = (await client.ok({ type: "persona_list" })).personas.find((p: any) => p.name === "mentor");
	assert.equal(row.memoryEntries, 1);
	assert.equal(row.sessionCount, 2);
	const { agents } = await client.ok({ type: "job_list" });
	assert.equal(agents.find((a: any) => a.name === "mentor").source, "persona");
});

test("remove deletes the definition only; purge deletes the whole root", async () => {
	assert.deepEqual(await client.ok({ type: "persona_remove", name: "mentor", confirm: true }), { name: "mentor", removed: "definition" });
	assert.ok(!existsSync(join(root("mentor"), "persona.md")));
	assert.ok(existsSync(join(root("mentor"), "memory", "entries.jsonl")), "memory stays");
	const row = (await client.ok({ type: "persona_list" })).personas.find((p: any) => p.name === "mentor");
	assert.equal(row.defined, false);
	assert.equal((await client.request({ type: "persona_run", name: "mentor", task: "x" })).code, "not_found");
	assert.deepEqual(await client.ok({ type: "persona_purge", name: "mentor", confirm: true }), { name: "mentor", removed: "root" });
	assert.ok(!existsSync(root("mentor")));
	mkdirSync(root("Stray"));
	assert.equal((await client.ok({ type: "persona_list" })).personas.find((p: any) => p.name === "Stray").defined, false);
});
