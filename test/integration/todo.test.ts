/**
 * The todo plan over the protocol, against the real service and the fake model: the model plans with the
 * `todo` tool and every follower sees `todo_updated` live; todo_op, todo_set and todo_get; every refusal
 * (cycles, duplicates, unknown tasks, an empty plan, whitespace) changes nothing; the plan is recorded in the
 * session and restored by tree navigation, fork, clone and a restart with --continue.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi } from "../support/fake-openai.js";
import { fakeModelHome } from "../support/fake-model-home.js";
import { ReplyGate } from "../support/reply-gate.js";
import type { SkiffProcess } from "../support/skiff-process.js";
import { type Event, TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
let skiff: SkiffProcess;
const gate = new ReplyGate();

before(async () => {
	model = await startFakeOpenAi({ onRequest: () => gate.held });
	skiff = await fakeModelHome(model.url).start();
});

after(async () => {
	await skiff?.stop();
	await model?.close();
});

const call = (args: unknown) => `CALL todo ${JSON.stringify(args)}\nAFTER_TOOL Noted.`;

/** A plan's tasks as `id:status`, in order. */
function statuses(phases: Array<{ tasks: Array<{ id: string; status: string }> }>): string[] {
	return phases.flatMap((p) => p.tasks.map((t) => `${t.id}:${t.status}`));
}

/** The plan snapshots recorded in a session file. */
function recordedPlans(file: string): unknown[] {
	return readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line))
		.filter((entry) => entry.type === "custom" && entry.customType === "skiff.todo")
		.map((entry) => entry.data.plan);
}

const INIT = {
	op: "init",
	list: [
		{ phase: "Build", items: ["Write the schema", { content: "Write the parser", dependsOn: ["Write the schema"] }] },
		{ phase: "Check", items: [{ content: "Test it", dependsOn: ["Write the parser"] }] },
	],
};

test("the model plans with the todo tool: followers see todo_updated live, and newly completed tasks are reported once", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const watcher = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession(watcher);
	const from = watcher.events.length;
	const events = await client.turn(sessionId, call(INIT));
	const types = events.map((e) => e.type);
	const updated = events.find((e) => e.type === "todo_updated")!;
	assert.ok(updated, "the plan change was announced");
	assert.ok(types.indexOf("tool_execution_start") < types.indexOf("todo_updated"), "during the tool call");
	assert.ok(types.indexOf("todo_updated") < types.indexOf("tool_execution_end"), "before its result: live");
	assert.equal(updated.cause, "tool");
	assert.deepEqual(statuses(updated.phases), ["t1:in_progress", "t2:pending", "t3:pending"], "the first ready task started");
	const parser = updated.phases[0].tasks[1];
	assert.deepEqual([parser.ready, parser.blockedBy.map((b: { id: string }) => b.id), parser.dependsOn], [false, ["t1"], ["t1"]]);
	await watcher.waitForEvent((e) => e.type === "todo_updated" && e.sessionId === sessionId, 10_000, from);
	const result = events.find((e) => e.type === "tool_execution_end")!;
	assert.equal(result.isError, false);
	assert.match(result.result.content[0].text, /Plan: 0\/3 done · 1 active · 2 blocked/);
	assert.match(result.result.content[0].text, /\[>\] t1 Write the schema/);

	const done = await client.turn(sessionId, call({ op: "done", task: "Write the schema" }));
	const doneEvent = done.find((e) => e.type === "todo_updated")!;
	assert.deepEqual(doneEvent.completed, [{ id: "t1", phase: "Build", content: "Write the schema" }]);
	assert.deepEqual(statuses(doneEvent.phases), ["t1:completed", "t2:in_progress", "t3:pending"], "the pointer moved on");
	assert.match(done.find((e) => e.type === "tool_execution_end")!.result.content[0].text, /Newly completed: t1 Write the schema/);

	const viewed = await client.turn(sessionId, call({ op: "view" }));
	assert.equal(viewed.filter((e) => e.type === "todo_updated").length, 0, "a view changes nothing and announces nothing");
	assert.doesNotMatch(viewed.find((e) => e.type === "tool_execution_end")!.result.content[0].text, /Newly completed/, "reported once");

	const { messages } = await client.ok({ type: "get_messages", sessionId });
	const hidden = messages.filter((m: any) => m.role === "custom" && m.customType === "todo-context");
	assert.ok(hidden.length >= 1, "the open plan is hidden context before later prompts");
	assert.ok(hidden.every((m: any) => m.display === false));
	const refused = await client.turn(sessionId, call({ op: "add_dependency", task: "t1", dependsOn: ["t3"] }));
	const failure = refused.find((e) => e.type === "tool_execution_end")!;
	assert.equal(failure.isError, true);
	assert.match(failure.result.content[0].text, /cycle: t1 "Write the schema" waits for t3 "Test it", which waits for t2 "Write the parser", which waits for t1/);
	assert.equal(refused.filter((e) => e.type === "todo_updated").length, 0);
	client.close();
	watcher.close();
});

test("todo_op, todo_set and todo_get; every refusal names what was wrong and changes nothing", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	const op = (fields: Record<string, unknown>) => client.request({ type: "todo_op", sessionId, ...fields });
	const plan = async () => (await client.ok({ type: "todo_get", sessionId })).phases;

	// An empty plan: ops other than init, append and view are refused.
	for (const name of ["start", "done", "drop", "rm", "add_dependency", "remove_dependency"]) {
		const refused = await op({ op: name, task: "t1", dependsOn: ["t2"] });
		assert.equal(refused.code, "conflict", name);
		assert.match(refused.error!, /The plan is empty/, name);
	}
	assert.equal((await op({ op: "view" })).data.summary, "The plan is empty.");
	// A message first, so the session file exists and refusals can be seen to write nothing.
	await client.turn(sessionId, "REPLY listening");
	const created = await client.ok({ type: "todo_op", sessionId, ...INIT });
	assert.equal(created.changed, true);
	const same = await client.ok({ type: "todo_op", sessionId, ...INIT });
	assert.equal(same.changed, false, "an identical init changes nothing");
	assert.deepEqual(statuses(same.phases), statuses(created.phases), "and keeps the ids");
	const before = await plan();
	const events = client.events.length;
	const { sessionFile } = await client.ok({ type: "get_state", sessionId });
	const written = readFileSync(sessionFile, "utf8");

	const refusals: Array<[Record<string, unknown>, string, RegExp]> = [
		[{ op: "add_dependency", task: "t1", dependsOn: ["t3"] }, "conflict", /cycle: t1 .* waits for t3 .* which waits for t2 .* which waits for t1/],
		[{ op: "add_dependency", task: "t2", dependsOn: ["t2"] }, "conflict", /would wait for itself|cannot wait for itself/],
		[{ op: "append", phase: "Check", items: ["Write the parser"] }, "conflict", /Task content "Write the parser" appears twice/],
		[{ op: "init", list: [{ phase: "A", items: ["x"] }, { phase: "A", items: ["y"] }] }, "conflict", /Phase name "A" appears twice/],
		[{ op: "init", list: [{ phase: "A", items: ["x", "x"] }] }, "conflict", /"x" appears twice in the list/],
		[{ op: "append", items: [" padded"] }, "invalid_command", /leading or trailing whitespace/],
		[{ op: "append", phase: "Phase ", items: ["new"] }, "invalid_command", /phase name "Phase " has leading or trailing whitespace/i],
		[{ op: "done", task: "t99" }, "not_found", /No task "t99"/],
		[{ op: "start", task: "Test it" }, "conflict", /Cannot start t3 "Test it": it waits for t2 "Write the parser" \(pending\)/],
		[{ op: "rm", task: "t1" }, "conflict", /Cannot remove t1 .*t2 "Write the parser" waits for it/],
		[{ op: "remove_dependency", task: "t3", dependsOn: ["t1"] }, "conflict", /t3 "Test it" does not wait for t1/],
		[{ op: "start", phase: "Nope" }, "not_found", /No phase "Nope"/],
		[{ op: "add_dependency", task: "t1" }, "invalid_command", /add_dependency needs `task` and `dependsOn`/],
		[{ op: "launch" }, "invalid_command", /`op` must be one of/],
		[{ op: "append", items: ["x".repeat(501)] }, "invalid_command", /500/],
	];
	for (const [fields, code, pattern] of refusals) {
		const refused = await op(fields);
		assert.equal(refused.success, false, JSON.stringify(fields));
		assert.equal(refused.code, code, JSON.stringify(fields));
		assert.match(refused.error!, pattern, JSON.stringify(fields));
	}
	assert.deepEqual(await plan(), before, "no refusal changed the plan");
	assert.equal(readFileSync(sessionFile, "utf8"), written, "nor wrote anything");
	assert.equal(client.events.slice(events).filter((e) => e.type === "todo_updated").length, 0, "nor announced anything");

	// Changes: each recorded and announced.
	const appended = await client.ok({ type: "todo_op", sessionId, op: "append", phase: "Ship", items: [{ content: "Release", dependsOn: ["t3"] }] });
	assert.deepEqual(appended.phases.map((p: { name: string }) => p.name), ["Build", "Check", "Ship"]);
	const removed = await client.ok({ type: "todo_op", sessionId, op: "rm", task: "t2", cascade: true });
	assert.deepEqual(statuses(removed.phases), ["t1:in_progress"], "cascade removed what waited for t2, transitively");
	const reset = await client.ok({
		type: "todo_set",
		sessionId,
		phases: [{ name: "Now", tasks: [{ id: "t1", content: "Write the schema", status: "completed" }, { content: "Review", dependsOn: ["t1"] }] }],
	});
	assert.deepEqual(statuses(reset.phases), ["t1:completed", "t5:in_progress"], "kept ids stay, new ids continue, the pointer applies");
	assert.deepEqual(reset.completed, [{ id: "t1", phase: "Now", content: "Write the schema" }]);
	const reopened = await client.ok({ type: "todo_op", sessionId, op: "start", task: "t1" });
	assert.deepEqual(statuses(reopened.phases), ["t1:in_progress", "t5:pending"], "start reopens; what waits for it goes back to pending");
	const badSet = await client.request({ type: "todo_set", sessionId, phases: [{ name: "X", tasks: [{ content: "a", dependsOn: ["b"] }] }] });
	assert.equal(badSet.code, "not_found");
	assert.match(badSet.error!, /waits for "b", which is not in the plan/);
	const cleared = await client.ok({ type: "todo_set", sessionId, phases: [] });
	assert.deepEqual(cleared.phases, []);
	const announced = client.events.slice(events).filter((e) => e.type === "todo_updated");
	assert.deepEqual(announced.map((e) => e.cause), ["command", "command", "command", "command", "command"]);
	client.close();
});

test("tree navigation, fork and clone restore the plan of the branch", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	await client.turn(sessionId, call(INIT));
	await client.turn(sessionId, call({ op: "done", task: "t1" }));
	const afterDone = statuses((await client.ok({ type: "todo_get", sessionId })).phases);
	assert.deepEqual(afterDone, ["t1:completed", "t2:in_progress", "t3:pending"]);
	const { state } = { state: await client.ok({ type: "get_state", sessionId }) };
	assert.equal(recordedPlans(state.sessionFile).length, 2, "each change is one custom entry in the session file");

	const tree = await client.ok({ type: "get_tree", sessionId });
	const users = tree.nodes.filter((n: { kind: string }) => n.kind === "user");
	const from = client.events.length;
	await client.ok({ type: "navigate_tree", sessionId, entryId: users[1].id });
	const restored = await client.waitForEvent((e) => e.type === "todo_updated" && e.sessionId === sessionId, 10_000, from);
	assert.equal(restored.cause, "restored");
	assert.deepEqual(statuses(restored.phases), ["t1:in_progress", "t2:pending", "t3:pending"], "back before done");
	assert.deepEqual(statuses((await client.ok({ type: "todo_get", sessionId })).phases), statuses(restored.phases));
	await client.ok({ type: "navigate_tree", sessionId, entryId: users[0].id });
	assert.deepEqual((await client.ok({ type: "todo_get", sessionId })).phases, [], "before the first prompt there was no plan");

	const fork = await client.ok({ type: "fork", sessionId: sessionId, entryId: users[1].id });
	assert.deepEqual(statuses((await client.ok({ type: "todo_get", sessionId: fork.sessionId })).phases), ["t1:in_progress", "t2:pending", "t3:pending"]);
	await client.ok({ type: "navigate_tree", sessionId, entryId: tree.leafId });
	assert.deepEqual(statuses((await client.ok({ type: "todo_get", sessionId })).phases), afterDone);
	const clone = await client.ok({ type: "clone", sessionId });
	assert.deepEqual(statuses((await client.ok({ type: "todo_get", sessionId: clone.sessionId })).phases), afterDone);
	client.close();
});

test("while a navigation summarizes the branch left, plan changes are refused (busy) and nothing is written", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	await client.turn(sessionId, call(INIT));
	await client.turn(sessionId, "REPLY to be summarized");
	const { nodes } = await client.ok({ type: "get_tree", sessionId });
	const { sessionFile } = await client.ok({ type: "get_state", sessionId });
	const release = gate.hold(); // the summary's reply waits
	const summaryRequest = model.nextRequest();
	const navigation = client.request({ type: "navigate_tree", sessionId, entryId: nodes.filter((n: { kind: string }) => n.kind === "user")[1].id, summarize: true });
	await summaryRequest;
	const written = readFileSync(sessionFile, "utf8");
	for (const command of [
		{ type: "todo_op", op: "done", task: "t1" },
		{ type: "todo_set", phases: [] },
	]) {
		const refused = await client.request({ sessionId, ...command });
		assert.equal(refused.code, "busy", command.type);
		assert.match(refused.error!, /moving to another point of its tree/);
	}
	assert.equal((await client.ok({ type: "todo_op", sessionId, op: "view" })).changed, false, "reading is fine");
	assert.equal(readFileSync(sessionFile, "utf8"), written, "nothing was written meanwhile");
	release();
	assert.equal((await navigation).success, true);
	assert.deepEqual(statuses((await client.ok({ type: "todo_get", sessionId })).phases), ["t1:in_progress", "t2:pending", "t3:pending"]);
	client.close();
});

test("a restart with --continue restores the plan", async () => {
	const home = fakeModelHome(model.url);
	const first = await home.start();
	let client = await TestClient.connect(first.wsUrl);
	const { sessionId } = await client.ok({ type: "get_state" });
	await client.turn(sessionId, call(INIT));
	await client.turn(sessionId, call({ op: "drop", phase: "Check" }));
	const planned = (await client.ok({ type: "todo_get" })).phases;
	client.close();
	await first.stop();
	const second = await home.start("--continue");
	try {
		client = await TestClient.connect(second.wsUrl);
		assert.equal((await client.ok({ type: "get_state" })).sessionId, sessionId);
		assert.deepEqual((await client.ok({ type: "todo_get" })).phases, planned);
		client.close();
	} finally {
		await second.stop();
	}
});

test("a plan set before the first message is on disk when acknowledged: it survives the process being killed", async () => {
	const home = fakeModelHome(model.url);
	const first = await home.start();
	let client = await TestClient.connect(first.wsUrl);
	const { sessionId, sessionFile } = await client.ok({ type: "get_state" });
	const planned = (await client.ok({ type: "todo_set", phases: [{ name: "Now", tasks: [{ content: "Plan first" }, { content: "Talk later" }] }] })).phases;
	assert.equal(recordedPlans(sessionFile).length, 1, "the session file exists from the plan on");
	assert.equal((await client.ok({ type: "get_state" })).persisted, true);
	client.close();
	await first.stop("SIGKILL"); // no shutdown flush: only what was on disk when acknowledged survives
	const second = await home.start("--continue");
	try {
		client = await TestClient.connect(second.wsUrl);
		assert.equal((await client.ok({ type: "get_state" })).sessionId, sessionId);
		assert.deepEqual((await client.ok({ type: "todo_get" })).phases, planned);
		const listed = (await client.ok({ type: "session_list" })).sessions.find((s: { sessionId: string }) => s.sessionId === sessionId);
		assert.equal(listed.firstMessage, "", "no placeholder posing as a title");
		client.close();
	} finally {
		await second.stop();
	}
});
