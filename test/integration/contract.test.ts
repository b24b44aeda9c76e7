/**
 * The protocol as a contract: a full run against the real service, every response's `data` checked against its
 * command's result schema, every event against its event schema, every failure carrying a known code.
 */
import assert from "node:assert/strict";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Compile } from "typebox/compile";
import { createEventRegistry, createSchemaRegistry } from "../../src/contract.js";
import { NoResult } from "../../src/protocol/command.js";
import { ERROR_CODES } from "../../src/shared/errors.js";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { type Response, TestClient } from "../support/ws-client.js";

const commands = createSchemaRegistry();
const events = createEventRegistry();
const resultChecks = new Map(commands.list().map((c) => [c.name, c.result === NoResult ? undefined : Compile(c.result)]));
const eventChecks = new Map(events.list().map((e) => [e.type, Compile(e.schema)]));

let model: FakeOpenAiServer;
let skiff: SkiffProcess;
let cwd: string;

before(async () => {
	model = await startFakeOpenAi();
	const agentDir = tempDir();
	cwd = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	skiff = await startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-model"] });
});

/** Appends a user message to a session file as another program (pi) would, continuing its last entry. */
function appendAsAnotherProgram(file: string, text: string): void {
	const last = JSON.parse(readFileSync(file, "utf8").trim().split("\n").at(-1)!);
	const now = Date.now();
	const message = { role: "user", content: [{ type: "text", text }], timestamp: now };
	appendFileSync(file, `${JSON.stringify({ type: "message", id: "other001", parentId: last.id, timestamp: new Date(now).toISOString(), message })}\n`);
}

after(async () => {
	await skiff?.stop();
	await model?.close();
});

/** Problems of a response against the contract, as readable lines. */
function responseProblems(response: Response): string[] {
	if (!response.success) {
		return response.code && response.code in ERROR_CODES ? [] : [`${response.command}: failure without a known code: ${JSON.stringify(response)}`];
	}
	const check = resultChecks.get(response.command);
	if (check === undefined) return "data" in response ? [`${response.command}: data where none is defined`] : [];
	if (check.Check(response.data)) return [];
	return [...check.Errors(response.data)].slice(0, 3).map((e) => `${response.command} result ${e.instancePath}: ${e.message}`);
}

function eventProblems(event: Record<string, unknown>): string[] {
	const check = eventChecks.get(String(event.type));
	if (!check) return [`unregistered event type ${String(event.type)}`];
	const value: unknown = event;
	if (check.Check(value)) return [];
	return [...check.Errors(event)].slice(0, 3).map((e) => `${String(event.type)} ${e.instancePath}: ${e.message} (${JSON.stringify(event).slice(0, 300)})`);
}

test("a full run: every response and event fits the published schemas", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const watcher = await TestClient.connect(skiff.wsUrl);
	const run = async (command: Record<string, unknown>) => client.request(command);
	const untilIdle = async (sessionId?: string) => {
		const from = client.events.length;
		return client.waitForEvent((e) => e.type === "agent_end" && (!sessionId || e.sessionId === sessionId), 20_000, from);
	};

	const state = (await run({ type: "get_state" })).data;
	await watcher.ok({ type: "subscribe", sessionId: state.sessionId });
	for (const type of ["get_messages", "get_available_models", "get_available_thinking_levels", "get_commands", "session_list", "ping", "memory_get_settings", "get_session_stats", "get_fork_messages", "get_tree", "queue_list", "memory_entries", "memory_status", "doctor"]) {
		await run({ type });
	}
	let idle = untilIdle();
	await run({ type: "prompt", message: "THINK let me see\nREPLY Looking.\nRUN echo contract\nAFTER_TOOL Done: **bold** and `code`." });
	await idle;
	idle = untilIdle();
	await run({ type: "prompt", message: "CALL read {\"path\":\"missing-file.txt\"}\nAFTER_TOOL The file is missing." });
	await idle;
	idle = untilIdle();
	await run({ type: "prompt", message: "REPLY one two three four five six\nSLOW 40" });
	await client.waitForEvent((e) => e.type === "message_update", 10_000);
	await run({ type: "steer", message: "steer here" });
	await run({ type: "follow_up", message: "follow here" });
	await run({ type: "follow_up", message: "and here" });
	await run({ type: "queue_list" });
	await run({ type: "queue_cancel", kind: "followUp", index: 1 });
	await run({ type: "abort" });
	await idle;
	// The tree: label an entry, move back to the first prompt and summarize the branch left, then continue.
	const tree = (await run({ type: "get_tree" })).data;
	const firstPrompt = tree.nodes.find((n: { kind: string }) => n.kind === "user");
	await run({ type: "set_label", entryId: firstPrompt.id, label: "start" });
	await run({ type: "set_label", entryId: "unknown", label: "x" });
	const navigated = (await run({ type: "navigate_tree", entryId: (await run({ type: "get_tree" })).data.leafId })).data;
	assert.equal(navigated.changed, false);
	await run({ type: "navigate_tree", entryId: firstPrompt.id, summarize: true });
	idle = untilIdle();
	await run({ type: "prompt", message: "REPLY on a new branch" });
	await idle;
	// The todo plan: the model's tool, the commands, a refusal.
	await run({ type: "todo_get" });
	idle = untilIdle();
	await run({ type: "prompt", message: `CALL todo ${JSON.stringify({ op: "init", list: [{ phase: "Build", items: ["schema", { content: "parser", dependsOn: ["schema"] }] }] })}\nAFTER_TOOL Planned.` });
	await idle;
	assert.deepEqual((await run({ type: "todo_op", op: "done", task: "schema" })).data.completed.map((t: { content: string }) => t.content), ["schema"]);
	assert.equal((await run({ type: "todo_op", op: "add_dependency", task: "schema", dependsOn: ["parser"] })).code, "conflict", "a cycle");
	await run({ type: "todo_set", phases: [{ name: "Ship", tasks: [{ content: "release" }] }] });
	// The goal: an activation whose turn uses the goal tool and spends the budget, which stops the run (the
	// model would call the tool forever: run_stopped), then every command.
	idle = untilIdle();
	assert.equal((await run({ type: "goal_create", objective: 'Contract goal\nLOOP_CALL goal {"op":"get"}', tokenBudget: 5, activate: true })).data.continuation, "started");
	await idle;
	idle = untilIdle();
	await run({ type: "prompt", message: "REPLY after the goal" });
	await idle;
	assert.equal((await run({ type: "goal_resume" })).code, "conflict", "the budget is spent");
	await run({ type: "goal_resume", tokenBudget: 1_000_000 });
	await run({ type: "goal_pin", text: "a note" });
	await run({ type: "goal_unpin", index: 0 });
	await run({ type: "goal_pause" });
	await run({ type: "goal_get" });
	await run({ type: "goal_journal" });
	await run({ type: "goal_complete" });
	assert.equal((await run({ type: "goal_drop" })).code, "conflict", "it is completed");
	assert.equal((await run({ type: "goal_create", objective: "x".repeat(70_000) })).code, "invalid_command");
	await run({ type: "compact" });
	await run({ type: "memory_forget", ids: ["nothing-here"] });
	await run({ type: "sessions_prune", olderThanDays: 30 });
	await run({ type: "sessions_prune", olderThanDays: -1 });
	assert.equal(typeof (await run({ type: "get_last_assistant_text" })).data.text, "string");
	assert.equal((await run({ type: "cycle_thinking_level" })).data, null, "fake-model cannot think");
	const bash = await run({ type: "bash", command: "echo contract-bash" });
	assert.equal(bash.data.output, "contract-bash\n");
	await run({ type: "abort_bash" });
	const exported = await run({ type: "export_html", outputPath: "contract.html" });
	assert.equal(exported.data.path, join(cwd, "contract.html"));
	assert.ok(existsSync(exported.data.path));
	assert.equal((await run({ type: "export_html", outputPath: "../outside.html" })).code, "forbidden");
	for (const mode of ["all", "one-at-a-time"]) {
		await run({ type: "set_steering_mode", mode });
		await run({ type: "set_follow_up_mode", mode });
	}
	await run({ type: "set_auto_compaction", enabled: false });
	await run({ type: "set_auto_retry", enabled: false });
	const settings = (await run({ type: "get_state" })).data;
	assert.deepEqual([settings.autoCompactionEnabled, settings.autoRetryEnabled, settings.steeringMode], [false, false, "one-at-a-time"]);
	await run({ type: "abort_retry" });
	const cycled = (await run({ type: "cycle_model" })).data;
	assert.equal(cycled.model.id, "fake-reasoner");
	assert.equal(cycled.isScoped, false);
	await run({ type: "set_model", provider: "fake", modelId: "fake-reasoner" });
	await run({ type: "set_thinking_level", level: "high" });
	assert.ok((await run({ type: "cycle_thinking_level" })).data.level);
	// Another program appends to the session file: the next command reloads it and says so.
	appendAsAnotherProgram(settings.sessionFile, "written by another program");
	const reloaded = await run({ type: "get_messages" });
	assert.equal(reloaded.data.messages.at(-1).content[0].text, "written by another program");
	await run({ type: "set_session_name", name: "Contract run" });
	const forkPoints = (await run({ type: "get_fork_messages" })).data.messages;
	const fork = await run({ type: "fork", entryId: forkPoints[1].entryId });
	await run({ type: "clone" });
	await run({ type: "close_session", sessionId: fork.data.sessionId });
	const fresh = (await run({ type: "new_session" })).data;
	await run({ type: "switch_session", sessionPath: state.sessionId });
	await run({ type: "get_state", sessionId: fresh.sessionId });
	await run({ type: "get_messages" });
	// Settings: inspect, a draft edited and applied, a project trusted and its draft cancelled.
	await run({ type: "settings_inspect" });
	const draft = (await run({ type: "settings_open_draft", scope: "global" })).data;
	await run({ type: "settings_set", draftId: draft.draftId, key: "steeringMode", value: "all" });
	await run({ type: "settings_set", draftId: draft.draftId, key: "memory.remoteApiToken", value: "$CONTRACT_TOKEN" });
	await run({ type: "settings_reset", draftId: draft.draftId, key: "memory.remoteApiToken" });
	await run({ type: "settings_validate", draftId: draft.draftId });
	assert.deepEqual((await run({ type: "settings_apply", draftId: draft.draftId })).data.appliedLive, ["steeringMode"]);
	await run({ type: "project_trust", trusted: true });
	const projectDraft = (await run({ type: "settings_open_draft", scope: "project" })).data;
	await run({ type: "settings_cancel", draftId: projectDraft.draftId });
	await run({ type: "settings_set", draftId: projectDraft.draftId, key: "steeringMode", value: "all" });
	await run({ type: "settings_set", draftId: "none", key: "steeringMode", value: 1 });
	await run({ type: "project_trust", trusted: false });
	await run({ type: "settings_open_draft", scope: "project" });
	// Side chat: a tab forked from the conversation runs a tool and answers; bad input is refused.
	await run({ type: "side_chat_new", name: "contract" });
	await run({ type: "side_chat_list" });
	const sideFrom = client.events.length;
	await run({ type: "side_chat_prompt", name: "contract", message: "REPLY peeking\nCALL peek_main {}\nAFTER_TOOL Seen." });
	await client.waitForEvent((e) => e.type === "side_chat_event" && e.event.type === "agent_end", 20_000, sideFrom);
	await run({ type: "side_chat_messages", name: "contract" });
	await run({ type: "side_chat_abort", name: "contract" });
	await run({ type: "side_chat_new", name: "bad name" });
	await run({ type: "side_chat_prompt", name: "unknown", message: "hi" });
	await run({ type: "side_chat_close", name: "contract" });
	// Jobs: the catalog, a job that yields, its output and transcript, cancelling, and refusals.
	await run({ type: "job_list" });
	const jobFrom = client.events.length;
	const spawned = (await run({ type: "task_spawn", task: 'CALL yield {"text":"contract result"}', description: "contract" })).data;
	const jobId = spawned.jobs[0].id;
	await client.waitForEvent((e) => e.type === "job_updated" && e.job.id === jobId && e.job.status === "completed", 20_000, jobFrom);
	await run({ type: "job_output", jobId });
	await run({ type: "job_transcript", jobId });
	await run({ type: "job_cancel" });
	await run({ type: "job_cancel", jobIds: ["job-00000000"] });
	await run({ type: "task_spawn", task: "x", agent: "nobody" });
	await run({ type: "job_output", jobId: "nope" });
	// Personas: create, read, edit, run, remove and purge; bad names refused.
	await run({ type: "persona_create", name: "contract" });
	await run({ type: "persona_list" });
	await run({ type: "persona_get", name: "contract" });
	await run({ type: "persona_edit", name: "contract", content: "---\nname: contract\ndescription: d\n---\nprompt\n" });
	const personaJob = (await run({ type: "persona_run", name: "contract", task: "REPLY persona says hi" })).data.job;
	await client.waitForEvent((e) => e.type === "job_updated" && e.job.id === personaJob.id && e.job.status === "completed", 20_000, jobFrom);
	await run({ type: "persona_remove", name: "contract", confirm: true });
	await run({ type: "persona_purge", name: "contract", confirm: true });
	await run({ type: "persona_create", name: "../bad" });
	// Workflows: one in the directory itself (isolation none), read, actions in the wrong state, removal; bad input.
	const workflowFrom = client.events.length;
	const workflow = (await run({ type: "workflow_create", name: "contract", objective: 'CALL todo {"op":"init","list":[{"phase":"P","items":["REPLY done"]}]}', isolation: "none" })).data.workflow;
	await client.waitForEvent((e) => e.type === "workflow_updated" && e.workflow.id === workflow.id && e.workflow.status === "completed", 30_000, workflowFrom);
	await run({ type: "workflow_list" });
	await run({ type: "workflow_get", workflowId: workflow.id });
	for (const type of ["workflow_pause", "workflow_resume", "workflow_cancel", "workflow_integrate"]) await run({ type, workflowId: workflow.id });
	await run({ type: "workflow_remove", workflowId: workflow.id });
	await run({ type: "workflow_get", workflowId: workflow.id });
	await run({ type: "workflow_create", name: "contract", objective: "x" });
	await run({ type: "workflow_create", name: "../x", objective: "x" });
	// Failures carry codes too.
	await run({ type: "nope" });
	await run({ type: "set_thinking_level", level: "lots" });
	await run({ type: "get_state", sessionId: "unknown-session" });
	await run({ type: "extension_ui_response" });
	await run({ type: "steer", message: "nothing is running" });

	const problems = [
		...client.responses.flatMap(responseProblems),
		...client.events.flatMap(eventProblems),
		...watcher.events.flatMap(eventProblems),
	];
	assert.deepEqual(problems, []);
	assert.ok(client.responses.length >= 30 && client.events.length >= 50, "the checks saw a full run");
	assert.equal(resultChecks.get("get_state")!.Check({}), false, "the checks are not vacuous");
	const seen = new Set(client.events.map((e) => e.type));
	for (const type of ["agent_start", "agent_end", "run_stopped", "message_update", "tool_execution_start", "tool_execution_end", "model_changed", "thinking_level_changed", "session_info_changed", "queue_update", "session_unloaded", "bash_execution_start", "bash_execution_update", "bash_execution_end", "session_reloaded", "tree_changed", "session_stats", "compaction_start", "compaction_end", "settings_changed", "side_chat_event", "side_chat_updated", "job_updated", "todo_updated", "goal_updated", "goal_usage", "workflow_updated"]) {
		assert.ok(seen.has(type), `the run produced ${type}`);
	}
	const modelChanged = watcher.events.find((e) => e.type === "model_changed");
	assert.equal(modelChanged?.model.id, "fake-reasoner", "another client following the session learns the model changed");
	client.close();
	watcher.close();
});
