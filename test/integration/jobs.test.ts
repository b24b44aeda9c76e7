/**
 * Subagent jobs against the real service and the fake model: the `task` tool and task_spawn start real child
 * sessions as the agents of the catalog, results come back once (yield, or the last reply marked so) as
 * hidden context plus a card that wakes the parent, nesting stops at the depth limit, and cancellation, turn
 * limits, bad input and a restart while jobs run behave as documented.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { ReplyGate } from "../support/reply-gate.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { type Event, TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
let skiff: SkiffProcess;
let agentDir: string;
let cwd: string;
const gate = new ReplyGate();

/** A fake-model script line calling a tool with these arguments. */
const call = (tool: string, args: unknown) => `CALL ${tool} ${JSON.stringify(args)}`;

before(async () => {
	model = await startFakeOpenAi({ onRequest: () => gate.held });
	agentDir = tempDir();
	cwd = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	mkdirSync(join(agentDir, "agents"));
	writeFileSync(
		join(agentDir, "agents", "reader.md"),
		"---\nname: reader\ndescription: Reads files and nothing else\ntools: [read]\nmaxTurns: 1\n---\nYou only read. READER-PROMPT-MARK\n",
	);
	writeFileSync(join(agentDir, "agents", "sleeper.md"), "---\nname: sleeper\ndescription: Gives up after a second\ntimeoutSeconds: 1\n---\nYou are quick.\n");
	writeFileSync(join(agentDir, "agents", "broken.md"), "---\nname: broken\ndescription: oops\ncolour: red\n---\nbody\n");
	skiff = await startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-model"] });
});

after(async () => {
	await skiff?.stop();
	await model?.close();
});

function jobEvent(e: Event, jobId: string, status?: string): boolean {
	return e.type === "job_updated" && e.job.id === jobId && (status === undefined || e.job.status === status);
}

async function finished(client: TestClient, jobId: string, from = 0): Promise<any> {
	const event = await client.waitForEvent((e) => jobEvent(e, jobId) && ["completed", "failed", "cancelled", "interrupted"].includes(e.job.status), 30_000, from);
	return event.job;
}

/** The first model request of the session whose first user message starts with `mark` (a child's task). */
function requestFor(mark: string) {
	return model.requests.find((r) => {
		const first = r.body.messages.find((m: any) => m.role === "user");
		const text = typeof first?.content === "string" ? first.content : (first?.content?.[0]?.text ?? "");
		return text.startsWith(mark);
	});
}

test("the catalog lists the bundled task agent, definitions, and a broken definition with its error", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const { agents, limits, jobs } = await client.ok({ type: "job_list" });
	const byName = new Map(agents.map((a: any) => [a.name, a]));
	assert.equal((byName.get("task") as any).source, "bundled");
	assert.deepEqual((byName.get("reader") as any).tools, ["read"]);
	assert.match((byName.get("broken") as any).error, /unknown frontmatter key colour/);
	assert.deepEqual(limits, { maxConcurrency: 4, maxDepth: 2, maxKept: 256, maxTurns: 50, timeoutSeconds: 1800 });
	assert.ok(Array.isArray(jobs));
	client.close();
});

test("a task tool call runs a child that yields once; the parent gets hidden context and a card, and wakes", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const { sessionId } = await client.ok({ type: "new_session" });
	const from = client.events.length;
	const childScript = `CHILD-ONE\n${call("yield", { text: "the answer is 42" })}\n${call("yield", { text: "again" })}`;
	await client.ok({ type: "prompt", sessionId, message: call("task", { task: childScript, description: "find the answer" }) });
	const queued = await client.waitForEvent((e) => e.type === "job_updated" && e.sessionId === sessionId, 20_000, from);
	assert.equal(queued.job.agent, "task");
	assert.equal(queued.job.depth, 1);
	const job = await finished(client, queued.job.id, from);
	assert.equal(job.status, "completed");
	assert.equal(job.yielded, true);
	assert.equal(job.outputPreview, "the answer is 42");
	const { output } = await client.ok({ type: "job_output", jobId: job.id });
	assert.equal(output, "the answer is 42", "the first yield is the result; the second is refused");

	// The child is a real recorded session with the bundled agent's prompt and the tools it allows.
	const childRequest = requestFor("CHILD-ONE")!;
	const tools = childRequest.body.tools.map((t: any) => t.function.name);
	for (const name of ["yield", "task", "read", "bash", "memory"]) assert.ok(tools.includes(name), `child has ${name}`);
	assert.match(JSON.stringify(childRequest.body.messages[0]), /You are a subagent/);
	const transcript = await client.ok({ type: "job_transcript", jobId: job.id });
	assert.equal(transcript.sessionId, job.sessionId);
	const toolResults = transcript.messages.filter((m: any) => m.role === "toolResult" && m.toolName === "yield");
	assert.equal(toolResults.length, 2);
	assert.equal(toolResults[1].isError, true);
	const childState = await client.ok({ type: "get_state", sessionId: job.sessionId });
	assert.ok(childState.sessionFile && childState.parentSession, "the child is recorded and names its parent");

	// The parent: a hidden result, a visible card, and one more run that answers the card.
	await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 20_000, client.events.findIndex((e, i) => i >= from && e.type === "message_end" && e.message?.customType === "job_card"));
	const { messages } = await client.ok({ type: "get_messages", sessionId });
	const result = messages.find((m: any) => m.customType === "job_result");
	const card = messages.find((m: any) => m.customType === "job_card");
	assert.equal(result.display, false);
	assert.match(result.content, /the answer is 42/);
	assert.equal(card.display, true);
	assert.equal(card.details.jobId, job.id);
	// The card says what a reader needs (the description, the result's first line) and that, and why, it woke the parent.
	assert.equal(card.details.description, "find the answer");
	assert.equal(card.details.summary, "the answer is 42");
	assert.equal(card.details.yielded, true);
	assert.match(card.details.woke, /idle when this job finished, so it was woken to read the result/);
	assert.equal(messages.at(-1).role, "assistant", "the parent woke and answered");
	const { jobs } = await client.ok({ type: "job_list", sessionId });
	assert.equal(jobs[0].id, job.id);
	client.close();
});

test("a child that never yields delivers its last reply, marked so; a batch shares its context", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const { sessionId } = await client.ok({ type: "new_session" });
	const from = client.events.length;
	const { jobs } = await client.ok({
		type: "task_spawn",
		sessionId,
		context: "SHARED-CONTEXT-MARK",
		tasks: [{ task: "REPLY first words" }, { task: "REPLY second words", agent: "task", description: "two" }],
	});
	assert.equal(jobs.length, 2);
	const [one, two] = await Promise.all(jobs.map((j: any) => finished(client, j.id, from)));
	assert.equal(one.status, "completed");
	assert.equal(one.yielded, false);
	// The output is the reply itself (what the Jobs panel and the card show); only the model is told it never yielded.
	const { output } = await client.ok({ type: "job_output", jobId: one.id });
	assert.equal(output, "first words");
	assert.equal(one.outputPreview, "first words");
	await client.waitForEvent((e) => e.type === "message_end" && e.sessionId === sessionId && e.message?.details?.jobId === one.id && e.message.customType === "job_card", 20_000, from);
	const delivered = (await client.ok({ type: "get_messages", sessionId })).messages;
	const hidden = delivered.find((m: any) => m.customType === "job_result" && m.details.jobId === one.id);
	assert.match(hidden.content, /\[The job ended without calling yield: this is its last reply\.\]\nfirst words$/);
	const shown = delivered.find((m: any) => m.customType === "job_card" && m.details.jobId === one.id);
	assert.equal(shown.details.summary, "first words");
	assert.equal(shown.details.yielded, false);
	assert.equal(two.description, "two");
	assert.ok(model.requests.filter((r) => JSON.stringify(r.body.messages).includes("SHARED-CONTEXT-MARK")).length >= 2);
	client.close();
});

test("nested jobs stop at the depth limit; a job's child that waits for its own jobs is woken by their results", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const { sessionId } = await client.ok({ type: "new_session" });
	const from = client.events.length;
	const deepest = `DEPTH-TWO\n${call("task", { task: "too deep" })}`;
	const { jobs } = await client.ok({ type: "task_spawn", sessionId, task: `DEPTH-ONE\n${call("task", { task: deepest })}` });
	const outer = await finished(client, jobs[0].id, from);
	assert.equal(outer.status, "completed");
	const listed = (await client.ok({ type: "job_list", sessionId })).jobs;
	const inner = listed.find((j: any) => j.depth === 2);
	assert.ok(inner, "the child's own job is listed with the parent's");
	assert.equal(inner.status, "completed");
	assert.equal(inner.parentSessionId, outer.sessionId);
	// The deepest child was not offered `task`; calling it fails as an unknown tool.
	const deepTools = requestFor("DEPTH-TWO")!.body.tools.map((t: any) => t.function.name);
	assert.ok(!deepTools.includes("task") && deepTools.includes("yield"));
	const refused = await client.request({ type: "task_spawn", sessionId: inner.sessionId, task: "deeper" });
	assert.equal(refused.code, "limit");
	assert.match(refused.error!, /jobs\.maxDepth/);
	// The outer child received its job's card and answered it before finishing.
	const outerMessages = (await client.ok({ type: "job_transcript", jobId: outer.id })).messages;
	assert.ok(outerMessages.some((m: any) => m.customType === "job_card" && m.details.jobId === inner.id));
	client.close();
});

test("cancelling a running job stops its child; a turn limit fails a job; bad input is refused", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const { sessionId } = await client.ok({ type: "new_session" });
	let from = client.events.length;
	const release = gate.hold();
	const { jobs } = await client.ok({ type: "task_spawn", sessionId, task: "REPLY never seen" });
	const running = await client.waitForEvent((e) => jobEvent(e, jobs[0].id, "running") && e.job.sessionId !== undefined, 20_000, from);
	assert.ok(running.job.startedAt);
	assert.deepEqual((await client.ok({ type: "job_cancel", jobIds: [jobs[0].id] })).cancelled, [jobs[0].id]);
	release();
	const cancelled = await finished(client, jobs[0].id, from);
	assert.equal(cancelled.status, "cancelled");
	assert.deepEqual((await client.ok({ type: "job_cancel", jobIds: [jobs[0].id] })).cancelled, []);

	from = client.events.length;
	const limited = (await client.ok({ type: "task_spawn", sessionId, agent: "reader", task: `READER-TASK\n${call("read", { path: "missing.txt" })}` })).jobs[0];
	const failed = await finished(client, limited.id, from);
	assert.equal(failed.status, "failed");
	assert.match(failed.error, /limit of 1 turn/);
	const readerTools = requestFor("READER-TASK")!.body.tools.map((t: any) => t.function.name).sort();
	assert.deepEqual(readerTools.filter((t: string) => !["memory", "task", "todo", "yield"].includes(t)), ["read"]);
	assert.match(JSON.stringify(requestFor("READER-TASK")!.body.messages[0]), /READER-PROMPT-MARK/);

	const codes = async (command: Record<string, unknown>) => (await client.request({ sessionId, ...command })).code;
	assert.equal(await codes({ type: "task_spawn", task: "x", agent: "nobody" }), "not_found");
	assert.equal(await codes({ type: "task_spawn", task: "x", agent: "broken" }), "invalid_command");
	assert.equal(await codes({ type: "task_spawn", task: "x", tasks: [{ task: "y" }] }), "invalid_command");
	assert.equal(await codes({ type: "task_spawn" }), "invalid_command");
	assert.equal(await codes({ type: "task_spawn", tasks: Array.from({ length: 17 }, () => ({ task: "t" })) }), "invalid_command");
	assert.equal(await codes({ type: "job_cancel", jobIds: ["job-00000000"] }), "not_found");
	assert.equal(await codes({ type: "job_output", jobId: "nope" }), "not_found");
	assert.equal(await codes({ type: "job_transcript", jobId: "nope" }), "not_found");
	client.close();
});

test("a job past its agent's time limit is stopped and fails, saying so", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const { sessionId } = await client.ok({ type: "new_session" });
	const from = client.events.length;
	// The model never answers while held, so only the agent's one-second limit can end the job.
	const release = gate.hold();
	try {
		const { jobs } = await client.ok({ type: "task_spawn", sessionId, agent: "sleeper", task: "REPLY too late" });
		const failed = await finished(client, jobs[0].id, from);
		assert.equal(failed.status, "failed");
		assert.match(failed.error, /longer than 1 s \(its time limit\)/);
	} finally {
		release();
		client.close();
	}
});

test("after a restart, jobs that were running are marked interrupted", async () => {
	const dir = tempDir();
	writeFakeModelsJson(dir, model.url);
	const first = await startSkiff({ agentDir: dir, cwd, args: ["--model", "fake/fake-model"] });
	let jobId: string;
	let parentId: string;
	const client = await TestClient.connect(first.wsUrl);
	parentId = (await client.ok({ type: "get_state" })).sessionId;
	const idle = client.waitForEvent((e) => e.type === "agent_end", 20_000);
	await client.ok({ type: "prompt", message: "REPLY recorded" });
	await idle;
	const release = gate.hold();
	try {
		const { jobs } = await client.ok({ type: "task_spawn", task: "REPLY cut short" });
		jobId = jobs[0].id;
		await client.waitForEvent((e) => jobEvent(e, jobId, "running") && e.job.sessionId !== undefined, 20_000);
		client.close();
		await first.stop("SIGKILL");
	} finally {
		release();
	}
	const stored = JSON.parse(readFileSync(join(dir, "jobs", "jobs.json"), "utf8"));
	assert.equal(stored.jobs[0].status, "running", "the record was durable before the crash");
	const second = await startSkiff({ agentDir: dir, cwd, args: ["--model", "fake/fake-model"] });
	try {
		const client = await TestClient.connect(second.wsUrl);
		const { jobs } = await client.ok({ type: "job_list", sessionId: parentId });
		const job = jobs.find((j: any) => j.id === jobId);
		assert.equal(job.status, "interrupted");
		assert.match(job.error, /service stopped/);
		client.close();
	} finally {
		await second.stop();
	}
});
