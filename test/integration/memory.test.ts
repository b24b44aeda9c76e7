/** Memory through the real agent loop: the fake model calls the tools; the fake Hindsight server checks every request. */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { projectStorePath } from "../../src/features/memory/local-store.js";
import { type FakeHindsight, startFakeHindsight } from "../support/fake-hindsight.js";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
let hindsight: FakeHindsight;
const running: SkiffProcess[] = [];

before(async () => {
	model = await startFakeOpenAi();
	hindsight = await startFakeHindsight();
});
after(async () => {
	for (const s of running) await s.stop();
	await model.close();
	await hindsight.close();
});

async function start(memory: Record<string, unknown> | undefined, env: Record<string, string> = {}, args: string[] = []) {
	const agentDir = tempDir();
	const cwd = tempDir("project-");
	writeFakeModelsJson(agentDir, model.url);
	if (memory) writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ memory }));
	const skiff = await startSkiff({ agentDir, cwd, args: ["--model", "fake/fake-model", ...args], env });
	running.push(skiff);
	return { skiff, agentDir, cwd, client: await TestClient.connect(skiff.wsUrl) };
}

/** Runs one prompt; returns the tool result text (if the model called a tool) and the model's tool list. */
async function turn(client: TestClient, message: string, sessionId?: string) {
	const from = client.events.length;
	const requestIndex = model.requests.length;
	await client.ok({ type: "prompt", message, sessionId });
	await client.waitForEvent((e) => e.type === "agent_end" && (!sessionId || e.sessionId === sessionId), 20_000, from);
	const end = client.events.slice(from).find((e) => e.type === "tool_execution_end");
	const tools = ((model.requests[requestIndex]!.body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
	return { result: end ? JSON.stringify(end.result) : undefined, isError: end?.isError as boolean | undefined, tools, request: model.requests[requestIndex]! };
}

const remoteSettings = () => ({ backend: "remote", remoteApiUrl: hindsight.url, remoteAllowInsecure: true, remoteApiToken: "$TEST_HS_TOKEN" });

test("local (default): the memory tool learns and recalls across sessions in this project's store", async () => {
	const { client, agentDir, cwd } = await start(undefined);
	const learned = await turn(client, 'CALL memory {"op":"learn","content":"deploys happen on Tuesday","tags":["ops"]}');
	assert.ok(learned.tools.includes("memory"));
	assert.ok(!learned.tools.some((t) => ["recall", "retain", "reflect"].includes(t)));
	assert.match(learned.result!, /Learned memory entry [0-9a-f]{32}/);
	assert.ok(existsSync(projectStorePath(agentDir, cwd)));
	const created = await client.ok({ type: "new_session" });
	const recalled = await turn(client, 'CALL memory {"op":"recall","query":"deploys"}', created.sessionId);
	assert.match(recalled.result!, /deploys happen on Tuesday/);
	const settings = await client.ok({ type: "memory_get_settings" });
	assert.equal(settings.backend, "local");
	assert.deepEqual(settings.activeTools, ["memory"]);
});

test("off hides every memory tool; switching at run time applies from the next turn and never touches the store", async () => {
	const { client, agentDir, cwd } = await start({ backend: "off" });
	assert.deepEqual((await turn(client, "REPLY nothing to remember")).tools.filter((t) => ["memory", "recall", "retain", "reflect"].includes(t)), []);
	await client.ok({ type: "memory_set_backend", backend: "local" });
	await turn(client, 'CALL memory {"op":"learn","content":"kept locally"}');
	const store = readFileSync(projectStorePath(agentDir, cwd), "utf8");
	const off = await client.ok({ type: "memory_set_backend", backend: "off" });
	assert.deepEqual(off.activeTools, []);
	// The doctor says it once: a subject for a title, the verdict in the detail ("Memory is off" was said twice).
	const check = (await client.ok({ type: "doctor" })).checks.find((c: any) => c.id === "memory");
	assert.equal(check.ok, true);
	assert.equal(`${check.title} ${check.detail}`.match(/\boff\b/gi)?.length, 1, `${check.title} / ${check.detail}`);
	assert.deepEqual((await turn(client, "REPLY quiet")).tools.filter((t) => t === "memory"), []);
	assert.equal(readFileSync(projectStorePath(agentDir, cwd), "utf8"), store, "switching away leaves the JSONL file as it was");
	const refused = await client.request({ type: "memory_set_backend", backend: "remote" });
	assert.equal(refused.success, false);
	assert.match(refused.error!, /remoteApiUrl is not configured/);
	const bad = await client.request({ type: "memory_set_backend", backend: "cloud" });
	assert.equal(bad.success, false);
});

test("remote: recall, retain and reflect reach the server; errors are contextual and never fall back to local", async () => {
	const { client, agentDir, cwd } = await start(remoteSettings(), { TEST_HS_TOKEN: "hs-secret-token-9" });
	const view = await client.ok({ type: "memory_get_settings" });
	assert.equal(view.remoteApiToken, "[REDACTED]");
	assert.ok(!JSON.stringify(view).includes("hs-secret-token-9"));
	const before = hindsight.requests.length;
	const retained = await turn(client, 'CALL retain {"content":"the staging database is pg-stage-2","context":"ops chat"}');
	assert.deepEqual(retained.tools.filter((t) => ["memory", "recall", "retain", "reflect"].includes(t)).sort(), ["recall", "reflect", "retain"]);
	assert.match(retained.result!, /1 memory retained/);
	const sent = hindsight.requests.slice(before);
	assert.deepEqual(sent.map((r) => `${r.method} ${r.operationId}`), ["PUT create_or_update_bank", "POST retain_memories"]);
	assert.ok(sent.every((r) => r.status === 200 && r.headers.authorization === "Bearer hs-secret-token-9"));
	const recalled = await turn(client, 'CALL recall {"query":"staging database"}');
	assert.match(recalled.result!, /pg-stage-2/);
	assert.equal(hindsight.requests.at(-1)!.operationId, "recall_memories");
	const reflected = await turn(client, 'CALL reflect {"query":"which staging database?"}');
	assert.match(reflected.result!, /pg-stage-2/);

	hindsight.fault({ operationId: "recall_memories", status: 500 });
	const failed = await turn(client, 'CALL recall {"query":"staging"}');
	assert.equal(failed.isError, true);
	assert.match(failed.result!, /remote memory recall failed \(HTTP 500\)/);
	assert.equal(existsSync(projectStorePath(agentDir, cwd)), false, "no fallback to the local store");
});

test("every scoping mode through the agent loop: the right bank and tags reach the server", async () => {
	for (const [scoping, expectBank, expectTags] of [
		["global", /^team-rpi$/, false],
		["per-project", /^team-rpi-project-[A-Za-z0-9]+-[0-9a-f]{12}$/, false],
		["per-project-tagged", /^team-rpi$/, true],
	] as const) {
		const { client } = await start({ ...remoteSettings(), remoteScoping: scoping, remoteBankIdPrefix: "team" }, { TEST_HS_TOKEN: "t" });
		const before = hindsight.requests.length;
		await turn(client, `CALL retain {"content":"scoped fact for ${scoping}"}`);
		const recalled = await turn(client, `CALL recall {"query":"scoped fact for ${scoping}"}`);
		assert.match(recalled.result!, new RegExp(`scoped fact for ${scoping}`));
		const sent = hindsight.requests.slice(before);
		const bank = decodeURIComponent(sent[0]!.path.split("/")[4]!);
		assert.match(bank, expectBank, scoping);
		const retainBody = sent.find((r) => r.operationId === "retain_memories")!.body as any;
		const recallBody = sent.find((r) => r.operationId === "recall_memories")!.body as any;
		assert.equal("tags" in retainBody.items[0], expectTags, scoping);
		assert.equal(recallBody.tags_match, expectTags ? "any" : undefined, scoping);
		assert.ok(sent.every((r) => r.status === 200), scoping);
	}
});

test("faults through the agent loop become contextual tool errors", async () => {
	const { client } = await start({ ...remoteSettings(), remoteRecallTimeoutMs: 300 }, { TEST_HS_TOKEN: "t" });
	const cases: Array<[Parameters<FakeHindsight["fault"]>[0], RegExp]> = [
		[{ operationId: "recall_memories", delayHeadersMs: 1200 }, /remote memory recall timed out/],
		[{ operationId: "recall_memories", trickleMs: 200 }, /remote memory recall timed out/],
		[{ operationId: "recall_memories", oversizedBytes: 300 * 1024 }, /exceeds the 262144-byte limit/],
		[{ operationId: "recall_memories", invalidJson: true }, /returned invalid JSON/],
		[{ operationId: "recall_memories", status: 401, body: '{"detail":"Invalid API key"}' }, /recall failed \(HTTP 401\)/],
		[{ operationId: "recall_memories", redirectTo: "http://127.0.0.1:1/x" }, /remote memory recall request failed/],
	];
	for (const [fault, pattern] of cases) {
		hindsight.fault(fault);
		const failed = await turn(client, 'CALL recall {"query":"anything at all"}');
		assert.equal(failed.isError, true, JSON.stringify(fault));
		assert.match(failed.result!, pattern, JSON.stringify(fault));
	}
	hindsight.clearFaults();
});

test("turn-start injection adds bounded hidden recall for the latest ask, and fails open", async () => {
	const { client } = await start({ ...remoteSettings(), remoteInjection: true }, { TEST_HS_TOKEN: "tok-injection" });
	await turn(client, 'CALL retain {"content":"the release train leaves on Fridays"}');
	const { request } = await turn(client, `REPLY noted\nwhen does the release train leave? ${"padding ".repeat(2000)}`);
	const sentToModel = JSON.stringify(request.body.messages);
	assert.match(sentToModel, /Related memories for the latest request/);
	assert.match(sentToModel, /release train leaves on Fridays/);
	const recall = hindsight.requests.filter((r) => r.operationId === "recall_memories").at(-1)!;
	assert.ok(((recall.body as { query: string }).query).length <= 1500, "the injected query is bounded");
	const { messages } = await client.ok({ type: "get_messages" });
	const hidden = messages.find((m: any) => m.role === "custom" && m.customType === "memory-context");
	assert.equal(hidden?.display, false);
	assert.equal(messages.filter((m: any) => m.role === "user").length, 2, "never submitted as a prompt of its own");

	hindsight.fault({ operationId: "recall_memories", delayHeadersMs: 8000 });
	const started = Date.now();
	await turn(client, "REPLY still answered\nrelease train?");
	assert.ok(Date.now() - started < 7500, "a slow memory server does not hold the turn beyond the injection deadline");
	hindsight.fault({ operationId: "recall_memories", status: 503 });
	const down = await turn(client, "REPLY fine anyway\nrelease?");
	assert.ok(down.request, "the turn ran without memory");
});

test("children inherit the parent's live backend; persona sessions keep local memory in their own root", async () => {
	const { client } = await start(remoteSettings(), { TEST_HS_TOKEN: "tok-child" });
	const primary = await client.ok({ type: "get_state" });
	const child = await client.ok({ type: "new_session", parentSessionId: primary.sessionId });
	await client.ok({ type: "memory_set_backend", backend: "local" }); // the live defaults change; the child keeps its own copy
	const childView = await client.ok({ type: "memory_get_settings", sessionId: child.sessionId });
	assert.equal(childView.backend, "remote");
	assert.equal(childView.shared, false);
	const childTurn = await turn(client, "REPLY child here", child.sessionId);
	assert.ok(childTurn.tools.includes("recall") && !childTurn.tools.includes("memory"));
	const grandchild = await client.ok({ type: "new_session", parentSessionId: child.sessionId });
	assert.equal((await client.ok({ type: "memory_get_settings", sessionId: grandchild.sessionId })).backend, "remote");

	const personaRoot = tempDir("persona-");
	const persona = await client.ok({ type: "new_session", personaRoot });
	const learned = await turn(client, 'CALL memory {"op":"learn","content":"the persona prefers short answers"}', persona.sessionId);
	assert.match(learned.result!, /Learned memory entry/);
	assert.match(readFileSync(join(personaRoot, "memory", "entries.jsonl"), "utf8"), /prefers short answers/);
});

const memoryTools = (tools: string[]) => tools.filter((t) => ["memory", "recall", "retain", "reflect"].includes(t));

test("an applied memory setting is in force in forks and clones too, and a session loaded again keeps its own", async () => {
	const { client } = await start(undefined, {}, ["--max-sessions", "2"]);
	await turn(client, "REPLY first answer\nfirst question");
	const { messages: points } = await client.ok({ type: "get_fork_messages" });
	const fork = await client.ok({ type: "fork", entryId: points[0].entryId });
	const clone = await client.ok({ type: "clone" });
	assert.equal((await client.ok({ type: "memory_get_settings", sessionId: fork.sessionId })).backend, "local");

	const { draftId } = await client.ok({ type: "settings_open_draft", scope: "global" });
	await client.ok({ type: "settings_set", draftId, key: "memory.backend", value: "off" });
	assert.deepEqual((await client.ok({ type: "settings_apply", draftId })).appliedLive, ["memory.backend"]);
	for (const sessionId of [undefined, fork.sessionId, clone.sessionId]) {
		assert.equal((await client.ok({ type: "memory_get_settings", sessionId })).backend, "off", `backend of ${sessionId ?? "primary"}`);
		const inspected = await client.ok({ type: "settings_inspect", sessionId });
		assert.equal(inspected.values.find((v: any) => v.key === "memory.backend").effectiveValue, "off");
		assert.deepEqual(memoryTools((await turn(client, "REPLY quiet", sessionId)).tools), [], `no memory tool in ${sessionId ?? "primary"}`);
	}

	// The fork's own run-time switch survives its unloading (--max-sessions 2) and loading again.
	await client.ok({ type: "memory_set_backend", sessionId: fork.sessionId, backend: "local" });
	for (let i = 0; i < 3; i++) await client.ok({ type: "new_session" });
	const listed = (await client.ok({ type: "session_list" })).sessions.find((s: any) => s.sessionId === fork.sessionId);
	assert.equal(listed.loaded, false, "the fork was unloaded");
	assert.deepEqual(memoryTools((await turn(client, "REPLY back again", fork.sessionId)).tools), ["memory"]);
	assert.equal((await client.ok({ type: "memory_get_settings", sessionId: fork.sessionId })).backend, "local");
	assert.equal((await client.ok({ type: "memory_get_settings" })).backend, "off", "the primary keeps the applied value");
});

test("invalid memory settings stop start-up with a message naming the key", async () => {
	const agentDir = tempDir();
	writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ memory: { backend: "remote", remoteApiUrl: "https://m.example", remoteApiToken: "$NOT_SET_ANYWHERE" } }));
	const { runSkiff } = await import("../support/skiff-process.js");
	const { code, stderr } = await runSkiff(["--listen", "127.0.0.1:0"], { SKIFF_AGENT_DIR: agentDir });
	assert.notEqual(code, 0);
	assert.match(stderr, /memory\.remoteApiToken refers to \$NOT_SET_ANYWHERE/);
});
