/**
 * The session goal over the protocol, against the real service and the fake model: every command and its
 * refusals (nothing recorded), the journal, hidden context while active, one continuation turn on activation in
 * which the model uses the `goal` tool and the events arrive live, usage charged after each turn and the budget
 * pausing the goal, tree navigation and fork restoring it, and a restart pausing an active goal (resume_safety).
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

/** The goal journal records in a session file. */
function recordedEvents(file: string): Array<{ revision: number; change: { kind: string } }> {
	return readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line))
		.filter((entry) => entry.type === "custom" && entry.customType === "skiff.goal")
		.map((entry) => entry.data.event);
}

test("goal commands: each transition is journalled and announced; a refused one records nothing", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const watcher = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession(watcher);
	const run = (command: Record<string, unknown>) => client.request({ sessionId, ...command });
	// A message first, so the session file exists and refusals can be seen to write nothing.
	await client.turn(sessionId, "REPLY listening");
	const { sessionFile } = await client.ok({ type: "get_state", sessionId });
	let written = readFileSync(sessionFile, "utf8");
	assert.deepEqual(await client.ok({ type: "goal_get", sessionId }), { revision: 0, actions: ["create"] });
	for (const type of ["goal_pause", "goal_resume", "goal_complete", "goal_drop"]) {
		const refused = await run({ type });
		assert.equal(refused.code, "conflict", type);
		assert.match(refused.error!, /There is no goal/, type);
	}
	assert.equal((await run({ type: "goal_pin", text: "x" })).code, "conflict");
	assert.equal((await run({ type: "goal_unpin", index: 0 })).code, "conflict");
	assert.equal(readFileSync(sessionFile, "utf8"), written, "no refusal wrote anything");

	const created = await client.ok({ type: "goal_create", sessionId, objective: "Make the build green", tokenBudget: 100_000 });
	assert.equal(created.goal.lifecycle, "active");
	assert.deepEqual(created.actions, ["pause", "complete", "drop", "pin"]);
	assert.equal(created.continuation, undefined, "no turn without activate");
	for (let i = 0; i < 8; i++) await client.ok({ type: "goal_pin", sessionId, text: `  note ${i}  ` });
	const pinned = await client.ok({ type: "goal_get", sessionId });
	assert.deepEqual(pinned.goal.pins.slice(0, 2), ["note 0", "note 1"], "pins are trimmed");
	const revision = pinned.revision;
	written = readFileSync(sessionFile, "utf8");

	const refusals: Array<[Record<string, unknown>, string, RegExp]> = [
		[{ type: "goal_pin", text: "ninth" }, "limit", /at most 8 pins/],
		[{ type: "goal_pin", text: "x".repeat(201) }, "limit", /A pin is at most 200 characters \(this one has 201\)/],
		[{ type: "goal_pin", text: "   " }, "invalid_command", /A pin is empty/],
		[{ type: "goal_unpin", index: 7 + 1 }, "invalid_command", /`index`/],
		[{ type: "goal_create", objective: "another" }, "conflict", /A goal is already active: complete or drop it/],
		[{ type: "goal_create", objective: "x".repeat(64 * 1024 + 1) }, "invalid_command", /65536/],
		[{ type: "goal_resume" }, "conflict", /Cannot resume the goal: it is active/],
		[{ type: "goal_create", objective: "x", tokenBudget: 0 }, "invalid_command", /tokenBudget/],
	];
	for (const [command, code, pattern] of refusals) {
		const refused = await run(command);
		assert.equal(refused.code, code, JSON.stringify(command).slice(0, 80));
		assert.match(refused.error!, pattern, JSON.stringify(command).slice(0, 80));
	}
	assert.equal((await client.ok({ type: "goal_get", sessionId })).revision, revision, "no refusal was recorded");
	assert.equal(readFileSync(sessionFile, "utf8"), written, "nor written");
	assert.equal(recordedEvents(sessionFile).length, revision, "each change is one entry in the session file");

	await client.ok({ type: "goal_unpin", sessionId, index: 0 });
	const wide = "🙂".repeat(200); // 200 characters, 400 UTF-16 units: a pin's length is counted in characters
	assert.equal((await client.ok({ type: "goal_pin", sessionId, text: wide })).goal.pins.at(-1), wide);
	await client.ok({ type: "goal_unpin", sessionId, index: 7 });
	const paused = await client.ok({ type: "goal_pause", sessionId });
	assert.deepEqual([paused.goal.lifecycle, paused.goal.pauseReason], ["paused", "manual"]);
	assert.deepEqual(paused.actions, ["resume", "complete", "drop", "pin", "unpin"]);
	assert.equal((await run({ type: "goal_pause" })).code, "conflict");
	const resumed = await client.ok({ type: "goal_resume", sessionId });
	assert.equal(resumed.goal.lifecycle, "active");
	const completed = await client.ok({ type: "goal_complete", sessionId });
	assert.deepEqual([completed.goal.lifecycle, completed.actions], ["completed", ["create"]]);
	for (const type of ["goal_pause", "goal_resume", "goal_complete", "goal_drop"]) {
		const refused = await run({ type });
		assert.equal(refused.code, "conflict", type);
		assert.match(refused.error!, /it is completed/, type);
	}
	assert.equal((await run({ type: "goal_pin", text: "late" })).code, "conflict", "a terminal goal takes no pins");
	// A new goal after a terminal one; multi-byte objectives count in bytes.
	const tooLong = await run({ type: "goal_create", objective: "é".repeat(40_000) });
	assert.equal(tooLong.code, "limit");
	assert.match(tooLong.error!, /80000 bytes: at most 65536/);
	const second = await client.ok({ type: "goal_create", sessionId, objective: "Second goal" });
	assert.notEqual(second.goal.id, completed.goal.id);
	await client.ok({ type: "goal_drop", sessionId });

	const journal = await client.ok({ type: "goal_journal", sessionId });
	assert.deepEqual(
		journal.events.map((e: { change: { kind: string } }) => e.change.kind),
		["created", ...Array(8).fill("pinned"), "unpinned", "pinned", "unpinned", "paused", "resumed", "completed", "created", "dropped"],
	);
	assert.deepEqual(journal.events.map((e: { revision: number }) => e.revision), journal.events.map((_: unknown, i: number) => i + 1));
	assert.equal(journal.total, journal.events.length);
	const operations = watcher.events.filter((e) => e.type === "goal_updated").map((e) => e.operation);
	assert.deepEqual(operations, ["created", ...Array(8).fill("pinned"), "unpinned", "pinned", "unpinned", "paused", "resumed", "completed", "created", "dropped"]);
	client.close();
	watcher.close();
});

test("activating a goal starts exactly one hidden continuation turn; the model completes the goal with its tool, live", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const watcher = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession(watcher);
	const from = watcher.events.length;
	const created = await client.ok({ type: "goal_create", sessionId, objective: 'Ship the release\nCALL goal {"op":"complete"}\nAFTER_TOOL Shipped.', activate: true });
	assert.equal(created.continuation, "started");
	await watcher.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 20_000, from);
	const events = watcher.events.slice(from).filter((e) => e.sessionId === sessionId);
	const types = events.map((e) => e.type);
	assert.equal(types.filter((t) => t === "agent_start").length, 1, "exactly one run");
	const hidden = events.find((e) => e.type === "message_end" && e.message.role === "custom")!;
	assert.deepEqual([hidden.message.customType, hidden.message.display], ["goal-continue", false]);
	assert.match(hidden.message.content, /Start concrete work toward the active session goal now/);
	const completion = events.find((e) => e.type === "goal_updated" && e.operation === "completed")!;
	assert.ok(types.indexOf("tool_execution_start") < events.indexOf(completion), "announced while the tool ran");
	assert.ok(events.indexOf(completion) < types.indexOf("tool_execution_end"));
	const usage = events.filter((e) => e.type === "goal_usage");
	assert.ok(usage.length >= 1, "the turn in which the goal was completed is still charged to it");
	assert.ok(usage.every((e) => e.delta.tokens > 0 && e.goalId === created.goal.id));
	const state = await client.ok({ type: "goal_get", sessionId });
	assert.equal(state.goal.lifecycle, "completed");
	assert.equal(state.goal.usage.tokens, usage.reduce((sum, e) => sum + e.delta.tokens, 0));
	const { messages } = await client.ok({ type: "get_messages", sessionId });
	assert.ok(messages.some((m: any) => m.role === "custom" && m.customType === "goal-continue"), "the continuation is recorded");
	client.close();
	watcher.close();
});

test("an activation during a run queues its one continuation turn behind the run", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	const from = client.events.length;
	const release = gate.hold();
	const first = model.nextRequest();
	await client.ok({ type: "prompt", sessionId, message: "REPLY busy for a moment" });
	await first;
	const requests = model.requests.length;
	const created = await client.ok({ type: "goal_create", sessionId, objective: "Queued goal", activate: true });
	assert.equal(created.continuation, "queued");
	const continued = model.nextRequest();
	release();
	const request = await continued;
	assert.match(JSON.stringify(request.body.messages.at(-1)), /Start concrete work toward the active session goal now/);
	await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 20_000, from);
	assert.equal(model.requests.length, requests + 1, "exactly one continuation turn");
	const events = client.events.slice(from).filter((e) => e.sessionId === sessionId);
	assert.equal(events.filter((e) => e.type === "agent_end").length, 1, "within the same run");
	const { messages } = await client.ok({ type: "get_messages", sessionId });
	const hidden = messages.filter((m: any) => m.role === "custom" && m.customType === "goal-continue");
	assert.deepEqual(hidden.map((m: any) => m.display), [false]);
	assert.deepEqual((await client.ok({ type: "queue_list", sessionId })), { steering: [], followUp: [] });
	client.close();
});

test("while active the goal is hidden context before each prompt and the goal tool is offered; paused, neither", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	await client.ok({ type: "goal_create", sessionId, objective: "Keep the docs current" });
	await client.ok({ type: "goal_pin", sessionId, text: "docs/protocol.md first" });
	const sent = model.nextRequest();
	await client.turn(sessionId, "REPLY on it");
	const request = await sent;
	const body = JSON.stringify(request.body.messages);
	assert.match(body, /The session has an active goal, set by the user:\\nKeep the docs current/);
	assert.match(body, /docs\/protocol.md first/);
	assert.ok(request.body.tools.some((t: any) => t.function.name === "goal"), "the goal tool is offered");
	const { messages } = await client.ok({ type: "get_messages", sessionId });
	const hidden = messages.filter((m: any) => m.role === "custom" && m.customType === "goal-context");
	assert.equal(hidden.length, 1);
	assert.equal(hidden[0].display, false);
	const charged = (await client.ok({ type: "goal_get", sessionId })).goal.usage.tokens;
	assert.ok(charged > 0, "the turn while active was charged");
	await client.ok({ type: "goal_pause", sessionId });
	const quiet = model.nextRequest();
	await client.turn(sessionId, "REPLY resting");
	const paused = await quiet;
	assert.doesNotMatch(JSON.stringify(paused.body.messages.slice(-1)), /active goal/);
	assert.ok(!paused.body.tools.some((t: any) => t.function.name === "goal"), "no goal tool while paused");
	const { goal } = await client.ok({ type: "goal_get", sessionId });
	assert.equal(goal.usage.tokens, charged, "the turn while paused was not");
	client.close();
});

test("usage is charged after each turn and a spent budget pauses the goal; resuming needs a new budget", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const watcher = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession(watcher);
	const from = watcher.events.length;
	const created = await client.ok({ type: "goal_create", sessionId, objective: "Refactor the parser", tokenBudget: 10, activate: true });
	assert.equal(created.continuation, "started");
	await watcher.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 20_000, from);
	const events = watcher.events.slice(from);
	const charge = events.find((e) => e.type === "goal_usage")!;
	assert.ok(charge.usage.tokens >= 10, "the turn cost more than the budget");
	assert.equal(charge.tokenBudget, 10);
	const pause = events.find((e) => e.type === "goal_updated" && e.operation === "paused")!;
	assert.ok(events.indexOf(charge) < events.indexOf(pause), "charged, then paused");
	assert.deepEqual([pause.state.goal.lifecycle, pause.state.goal.pauseReason], ["paused", "budget_exhausted"]);
	const used = pause.state.goal.usage.tokens;

	const noBudget = await client.request({ type: "goal_resume", sessionId });
	assert.equal(noBudget.code, "conflict");
	assert.match(noBudget.error!, /budget is spent .*resume it with a new tokenBudget/);
	const tooSmall = await client.request({ type: "goal_resume", sessionId, tokenBudget: used });
	assert.equal(tooSmall.code, "invalid_command");
	assert.match(tooSmall.error!, new RegExp(`more than the ${used} tokens`));
	const resumed = await client.ok({ type: "goal_resume", sessionId, tokenBudget: used + 100_000 });
	assert.deepEqual([resumed.goal.lifecycle, resumed.goal.tokenBudget], ["active", used + 100_000]);
	const kinds = (await client.ok({ type: "goal_journal", sessionId })).events.map((e: { change: { kind: string } }) => e.change.kind);
	assert.deepEqual(kinds.slice(0, 1), ["created"]);
	assert.deepEqual(kinds.slice(-2), ["paused", "resumed"]);
	assert.ok(kinds.includes("usage"));
	client.close();
	watcher.close();
});

test("tree navigation, fork and clone restore the goal of the branch", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	await client.turn(sessionId, "REPLY one");
	await client.ok({ type: "goal_create", sessionId, objective: "Branch goal" });
	await client.turn(sessionId, "REPLY two");
	await client.ok({ type: "goal_pause", sessionId });
	const tree = await client.ok({ type: "get_tree", sessionId });
	const users = tree.nodes.filter((n: { kind: string }) => n.kind === "user");
	let from = client.events.length;
	await client.ok({ type: "navigate_tree", sessionId, entryId: users[1].id });
	let restored = await client.waitForEvent((e) => e.type === "goal_updated" && e.sessionId === sessionId, 10_000, from);
	assert.deepEqual([restored.operation, restored.state.goal.lifecycle], ["restored", "active"], "before the pause");
	from = client.events.length;
	await client.ok({ type: "navigate_tree", sessionId, entryId: users[0].id });
	restored = await client.waitForEvent((e) => e.type === "goal_updated" && e.sessionId === sessionId, 10_000, from);
	assert.equal(restored.state.goal, undefined, "before the goal was set");
	assert.deepEqual(restored.state.actions, ["create"]);

	const fork = await client.ok({ type: "fork", sessionId, entryId: users[1].id });
	const forked = await client.ok({ type: "goal_get", sessionId: fork.sessionId });
	assert.deepEqual([forked.goal.objective, forked.goal.lifecycle], ["Branch goal", "active"], "a fork takes the goal of its point");
	await client.ok({ type: "navigate_tree", sessionId, entryId: tree.leafId });
	assert.equal((await client.ok({ type: "goal_get", sessionId })).goal.lifecycle, "paused");
	const clone = await client.ok({ type: "clone", sessionId });
	const cloned = await client.ok({ type: "goal_get", sessionId: clone.sessionId });
	assert.deepEqual([cloned.goal.lifecycle, cloned.revision], ["paused", (await client.ok({ type: "goal_get", sessionId })).revision], "a clone takes the journal of the leaf");
	client.close();
});

test("a session closed and loaded again pauses its active goal (resume_safety); nothing runs until it is resumed", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	await client.turn(sessionId, "REPLY first");
	await client.ok({ type: "goal_create", sessionId, objective: "Wait for me" });
	await client.ok({ type: "close_session", sessionId });
	const requests = model.requests.length;
	const from = client.events.length;
	await client.ok({ type: "switch_session", sessionPath: sessionId });
	await client.ok({ type: "subscribe", sessionId });
	const state = await client.ok({ type: "goal_get", sessionId });
	assert.deepEqual([state.goal.lifecycle, state.goal.pauseReason, state.actions], ["paused", "resume_safety", ["resume", "complete", "drop", "pin"]]);
	assert.deepEqual(recordedEvents((await client.ok({ type: "get_state", sessionId })).sessionFile).map((e) => e.change.kind), ["created", "paused"]);
	assert.equal(model.requests.length, requests, "nothing ran");
	const resumed = await client.ok({ type: "goal_resume", sessionId, activate: true });
	assert.equal(resumed.continuation, "started");
	await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === sessionId, 20_000, from);
	assert.equal(model.requests.length, requests + 1, "one continuation turn once resumed");
	client.close();
});

test("while a navigation summarizes the branch left, goal changes are refused (busy) and nothing is written", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const sessionId = await client.newSession();
	await client.turn(sessionId, "REPLY base");
	await client.ok({ type: "goal_create", sessionId, objective: "Stay put" });
	await client.turn(sessionId, "REPLY to be summarized");
	const { nodes } = await client.ok({ type: "get_tree", sessionId });
	const { sessionFile } = await client.ok({ type: "get_state", sessionId });
	const release = gate.hold(); // the summary's reply waits
	const summaryRequest = model.nextRequest();
	const navigation = client.request({ type: "navigate_tree", sessionId, entryId: nodes.filter((n: { kind: string }) => n.kind === "user")[1].id, summarize: true });
	await summaryRequest;
	const written = readFileSync(sessionFile, "utf8");
	for (const command of [{ type: "goal_pause" }, { type: "goal_pin", text: "late" }, { type: "goal_complete" }, { type: "goal_drop" }]) {
		const refused = await client.request({ sessionId, ...command });
		assert.equal(refused.code, "busy", command.type);
		assert.match(refused.error!, /moving to another point of its tree/);
	}
	assert.equal((await client.ok({ type: "goal_get", sessionId })).goal.lifecycle, "active", "reading is fine");
	assert.equal(readFileSync(sessionFile, "utf8"), written, "nothing was written meanwhile");
	release();
	assert.equal((await navigation).success, true);
	assert.equal((await client.ok({ type: "goal_get", sessionId })).goal.lifecycle, "active");
	client.close();
});

test("a restart with --continue pauses an active goal (resume_safety) and nothing runs", async () => {
	const home = fakeModelHome(model.url);
	const first = await home.start();
	let client = await TestClient.connect(first.wsUrl);
	const { sessionId, sessionFile } = await client.ok({ type: "get_state" });
	await client.ok({ type: "goal_create", objective: "Survive a restart", tokenBudget: 1_000_000 });
	await client.turn(sessionId, "REPLY working");
	const before = (await client.ok({ type: "goal_get" })).goal;
	assert.equal(before.lifecycle, "active");
	client.close();
	await first.stop();
	const requests = model.requests.length;
	const second = await home.start("--continue");
	try {
		client = await TestClient.connect(second.wsUrl);
		const after = await client.ok({ type: "goal_get" });
		assert.deepEqual([after.goal.lifecycle, after.goal.pauseReason], ["paused", "resume_safety"]);
		assert.deepEqual(after.goal.usage, before.usage, "usage survives the restart");
		assert.deepEqual(recordedEvents(sessionFile).at(-1)!.change, { kind: "paused", reason: "resume_safety" }, "the pause is recorded");
		assert.equal(model.requests.length, requests, "nothing ran unattended");
		const resumed = await client.ok({ type: "goal_resume" });
		assert.equal(resumed.goal.lifecycle, "active");
		client.close();
	} finally {
		await second.stop();
	}
});

test("a goal created before the first message is on disk when acknowledged: a killed process reopens it paused", async () => {
	const home = fakeModelHome(model.url);
	const first = await home.start();
	let client = await TestClient.connect(first.wsUrl);
	const { sessionId, sessionFile } = await client.ok({ type: "get_state" });
	await client.ok({ type: "goal_create", objective: "Written before anything is said" });
	await client.ok({ type: "goal_pin", text: "Pinned early" });
	assert.deepEqual(
		recordedEvents(sessionFile).map((e) => e.change.kind),
		["created", "pinned"],
		"the session file exists from the goal on",
	);
	client.close();
	await first.stop("SIGKILL");
	const second = await home.start("--continue");
	try {
		client = await TestClient.connect(second.wsUrl);
		assert.equal((await client.ok({ type: "get_state" })).sessionId, sessionId);
		const { goal } = await client.ok({ type: "goal_get" });
		assert.equal(goal.objective, "Written before anything is said");
		assert.deepEqual(goal.pins, ["Pinned early"]);
		assert.deepEqual([goal.lifecycle, goal.pauseReason], ["paused", "resume_safety"]);
		client.close();
	} finally {
		await second.stop();
	}
});
