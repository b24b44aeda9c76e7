/**
 * FIFOs (and symbolic links to them) where the service reads files a user or an agent can write: persona
 * sessions, definitions and memory, agent definitions, memory stores and their lock, settings files, session
 * files, job outputs and records, workflow records. Opening a FIFO to read waits for a writer for ever, so each
 * must be refused at once: the service keeps answering ping, and each entry is skipped (or the command refused)
 * with a clear message naming it.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { projectStorePath } from "../../src/features/memory/local-store.js";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { runSkiffInOrder, type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { until } from "../support/until.js";
import { TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
let skiff: SkiffProcess;
let client: TestClient;
let agentDir: string;
let cwd: string;

/** A FIFO at `path` (its folder made first), and a symbolic link to it at `link` when given. */
function fifo(path: string, link?: string): void {
	mkdirSync(join(path, ".."), { recursive: true });
	execFileSync("mkfifo", [path]);
	if (link) symlinkSync(path, link);
}

const persona = (name: string) => `---\nname: ${name}\ndescription: ${name} persona\n---\nYou are ${name}.\n`;
const personaRoot = (name: string) => join(agentDir, "personas", name);
const ARCHIVED = `${JSON.stringify({ type: "session", version: 3, id: "old-run", timestamp: "2020-01-01T00:00:00.000Z", cwd: "/x" })}\n${JSON.stringify({
	type: "message",
	id: "m1",
	parentId: null,
	timestamp: "2020-01-01T00:00:01.000Z",
	message: { role: "assistant", content: [{ type: "text", text: "ECHO-EARLIER-RUN" }] },
})}\n`;

before(async () => {
	model = await startFakeOpenAi();
	agentDir = tempDir();
	cwd = tempDir("project-");
	writeFakeModelsJson(agentDir, model.url);
	// Agent definitions.
	fifo(join(agentDir, "agents", "piped.md"), join(agentDir, "agents", "linked.md"));
	// A persona whose definition is a FIFO, one whose memory is, one whose memory is a link to one.
	fifo(join(personaRoot("ghost"), "persona.md"));
	mkdirSync(personaRoot("mute"));
	writeFileSync(join(personaRoot("mute"), "persona.md"), persona("mute"));
	fifo(join(personaRoot("mute"), "memory", "entries.jsonl"));
	mkdirSync(personaRoot("linkmem"));
	writeFileSync(join(personaRoot("linkmem"), "persona.md"), persona("linkmem"));
	mkdirSync(join(personaRoot("linkmem"), "memory"));
	symlinkSync(join(personaRoot("mute"), "memory", "entries.jsonl"), join(personaRoot("linkmem"), "memory", "entries.jsonl"));
	// A persona with one real archived run, a FIFO and a link to it among its sessions.
	mkdirSync(join(personaRoot("echo"), "sessions"), { recursive: true });
	writeFileSync(join(personaRoot("echo"), "persona.md"), persona("echo"));
	writeFileSync(join(personaRoot("echo"), "sessions", "2020-01-01T00-00-00-000Z_job-00000001.jsonl"), ARCHIVED);
	fifo(join(personaRoot("echo"), "sessions", "2021-01-01T00-00-00-000Z_job-00000002.jsonl"), join(personaRoot("echo"), "sessions", "2022-01-01T00-00-00-000Z_job-00000003.jsonl"));
	// Session files: one found by its header (no id in its name), one by its name.
	const planted = join(agentDir, "sessions", "--planted--");
	fifo(join(planted, "odd.jsonl"), join(planted, "odd-link.jsonl"));
	fifo(join(planted, "2020-01-01T00-00-00-000Z_fifo-session.jsonl"), join(planted, "2020-01-01T00-00-00-000Z_link-session.jsonl"));
	// The project's memory store, whose lock is a FIFO (the store itself holds one entry).
	const store = projectStorePath(agentDir, cwd);
	mkdirSync(join(store, ".."), { recursive: true });
	writeFileSync(store, `${JSON.stringify({ id: "m-1", content: "a note", ts: 1, session: "s" })}\n`);
	fifo(`${store}.lock`);
	skiff = await startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-model"] });
	client = await TestClient.connect(skiff.wsUrl);
});

after(async () => {
	client?.close();
	await skiff?.stop();
	await model?.close();
});

/** Waits until the service's standard error holds `pattern` (it comes through its own pipe, after or before a response). */
function logged(process: SkiffProcess, pattern: RegExp): Promise<void> {
	return until(() => pattern.test(process.stderr()), () => `${pattern} on standard error:\n${process.stderr()}`);
}

/** The service answers: nothing it read has stopped its event loop or its thread pool. */
async function stillAnswers(): Promise<void> {
	await client.ok({ type: "ping" });
	await client.ok({ type: "get_state" });
}

test("agent definitions: a FIFO and a link to it are listed with their error, never opened", async () => {
	const { agents } = await client.ok({ type: "job_list" });
	assert.match(agents.find((a: any) => a.name === "piped").error, /it is not a regular file \(a FIFO\)/);
	assert.match(agents.find((a: any) => a.name === "linked").error, /it is not a regular file \(a symbolic link, not followed\)/);
	await stillAnswers();
});

test("personas: a FIFO definition, a FIFO memory and a link to it are errors in their rows, with a warning", async () => {
	const { personas } = await client.ok({ type: "persona_list" });
	const row = (name: string) => personas.find((p: any) => p.name === name);
	assert.equal(row("ghost").error, "persona.md is not a regular file (a FIFO)");
	assert.equal(row("mute").error, "its memory file cannot be read");
	assert.equal(row("linkmem").error, "its memory file cannot be read");
	assert.equal(row("echo").sessionCount, 1, "only the regular transcript counts");
	await logged(skiff, /personas: .*ghost\/persona\.md is not a regular file \(a FIFO\)/);
	await logged(skiff, /personas: .*echo\/sessions\/2021-01-01T00-00-00-000Z_job-00000002\.jsonl is not a regular file \(a FIFO\); skipped/);
	await logged(skiff, /personas: .*echo\/sessions\/2022-01-01T00-00-00-000Z_job-00000003\.jsonl is not a regular file \(a symbolic link, not followed\); skipped/);
	const refused = await client.request({ type: "persona_run", name: "ghost", task: "x" });
	assert.match(refused.error!, /Persona ghost cannot be run: persona.md is not a regular file \(a FIFO\)/);
	await stillAnswers();
});

test("personas: a run's continuity skips the FIFO and the link among the archived sessions", async () => {
	const from = client.events.length;
	const { job } = await client.ok({ type: "persona_run", name: "echo", task: "ECHO-RUN-MARK" });
	const done = await client.waitForEvent((e) => e.type === "job_updated" && e.job.id === job.id && ["completed", "failed"].includes(e.job.status), 30_000, from);
	assert.equal(done.job.status, "completed", JSON.stringify(done.job));
	const request = model.requests.find((r) => JSON.stringify(r.body.messages).includes("ECHO-RUN-MARK"));
	assert.match(JSON.stringify(request!.body.messages[0].content), /ECHO-EARLIER-RUN/, "the regular transcript still gives continuity");
	await stillAnswers();
});

test("the memory store's lock is a FIFO: the change is refused naming it", async () => {
	const refused = await client.request({ type: "memory_forget", ids: ["m-1"] });
	assert.equal(refused.success, false);
	assert.match(refused.error!, /memory store lock .*entries\.jsonl\.lock is not a regular file \(a FIFO\): remove it/);
	await stillAnswers();
});

test("session files: a FIFO or a link to one is not listed, and one named as a session is refused, never read", async () => {
	const unknown = await client.request({ type: "switch_session", sessionPath: "no-such-prefix" });
	assert.equal(unknown.code, "unknown_session");
	await logged(skiff, /sessions: .*--planted--\/odd\.jsonl is not a regular file \(a FIFO\); it is not listed as a session/);
	await logged(skiff, /sessions: .*--planted--\/odd-link\.jsonl is not a regular file \(a FIFO\); it is not listed as a session/);
	for (const id of ["fifo-session", "link-session"]) {
		const refused = await client.request({ type: "switch_session", sessionPath: id });
		assert.equal(refused.success, false, id);
		assert.match(refused.error!, new RegExp(`_${id}\\.jsonl is not a regular file \\(a FIFO\\): a session is opened from a regular file only`));
	}
	await stillAnswers();
});

test("a trusted project's settings file is a FIFO: reported and ignored", async () => {
	fifo(join(cwd, ".skiff", "settings.json"));
	await client.ok({ type: "project_trust", trusted: true });
	const inspection = await client.ok({ type: "settings_inspect" });
	assert.match(inspection.projectError, /\.skiff\/settings\.json is not a regular file \(a FIFO\): settings are read only from a regular file/);
	await stillAnswers();
	await client.ok({ type: "project_trust", trusted: false });
});

test("a finished job's output replaced by a FIFO is not read: no output, and a warning", async () => {
	const from = client.events.length;
	const { jobs } = await client.ok({ type: "task_spawn", task: "REPLY job words" });
	const done = await client.waitForEvent((e) => e.type === "job_updated" && e.job.id === jobs[0].id && e.job.status === "completed", 30_000, from);
	const output = join(agentDir, "jobs", `${done.job.id}.txt`);
	rmSync(output);
	fifo(output);
	const answer = await client.ok({ type: "job_output", jobId: done.job.id });
	assert.equal(answer.output, undefined);
	await logged(skiff, new RegExp(`jobs: .*${done.job.id}\\.txt is not a regular file \\(a FIFO\\); the job's output is not read`));
	await stillAnswers();
});

test("records read at start-up (jobs, workflows) and the memory store: FIFOs and links are reported, the service starts", async () => {
	const dir = tempDir();
	const project = tempDir("project-");
	writeFakeModelsJson(dir, model.url);
	fifo(join(dir, "jobs", "jobs.json"));
	fifo(join(dir, "workflows", "wf-0123456789ab", "workflow.json"));
	mkdirSync(join(dir, "workflows", "wf-ba9876543210"));
	symlinkSync(join(dir, "workflows", "wf-0123456789ab", "workflow.json"), join(dir, "workflows", "wf-ba9876543210", "workflow.json"));
	fifo(projectStorePath(dir, project));
	const started = await startSkiff({ agentDir: dir, cwd: project, args: ["--model", "fake/fake-model"] });
	try {
		await started.ready;
		const other = await TestClient.connect(started.wsUrl);
		await other.ok({ type: "ping" });
		await logged(started, /jobs: .*jobs\.json could not be read \(.*jobs\.json is not a regular file \(a FIFO\)\); starting without job records/);
		await logged(started, /workflows: .*wf-0123456789ab\/workflow\.json could not be read \(.*is not a regular file \(a FIFO\)\)/);
		await logged(started, /workflows: .*wf-ba9876543210\/workflow\.json could not be read \(.*is not a regular file \(a symbolic link, not followed\)\)/);
		const entries = await other.request({ type: "memory_entries" });
		assert.equal(entries.success, false);
		assert.match(entries.error!, /memory store cannot be read: .*entries\.jsonl is not a regular file \(a FIFO\)/);
		await other.ok({ type: "ping" });
		other.close();
	} finally {
		await started.stop();
	}
});

test("a global settings file that is a FIFO, or a link to one, is refused at start-up naming it, at once", async () => {
	for (const linked of [false, true]) {
		const dir = tempDir();
		if (linked) {
			fifo(join(dir, "elsewhere.json"));
			symlinkSync(join(dir, "elsewhere.json"), join(dir, "settings.json"));
		} else {
			fifo(join(dir, "settings.json"));
		}
		const { code, output } = await runSkiffInOrder(["--listen", "127.0.0.1:0"], { SKIFF_AGENT_DIR: dir });
		assert.notEqual(code, 0);
		assert.match(output, /settings\.json is not a regular file \(a FIFO\): settings are read only from a regular file/);
		assert.doesNotMatch(output, /listening/);
	}
});
