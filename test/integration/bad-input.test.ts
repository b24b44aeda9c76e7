/** Bad input gets a clear error and never disturbs anyone else. */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { MAX_FRAME_BYTES, MAX_RPC_BODY_BYTES } from "../../src/listener/limits.js";
import { startFakeOpenAi, writeFakeModelsJson, type FakeOpenAiServer } from "../support/fake-openai.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
let skiff: SkiffProcess;
let bystander: TestClient;

before(async () => {
	model = await startFakeOpenAi();
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model"] });
	await skiff.ready; // the 5 s guards below are for answers, not for loading the runtime on a busy machine
	bystander = await TestClient.connect(skiff.wsUrl);
});

after(async () => {
	bystander?.close();
	await skiff?.stop();
	await model?.close();
});

/** The service still answers another client normally. */
async function stillServing(): Promise<void> {
	assert.equal((await bystander.request({ type: "ping" })).success, true);
}

async function lastResponse(client: TestClient, count: number): Promise<any> {
	await client.waitFor(() => (client.responses.length >= count ? true : undefined), 5000, "response");
	return client.responses[count - 1];
}

test("malformed frames get parse errors on the same socket", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const cases: Array<[string, RegExp, string]> = [
		["{not json", /Failed to parse command/, "parse"],
		["[1,2]", /must be a JSON object/, "parse"],
		["\"prompt\"", /must be a JSON object/, "parse"],
		["null", /must be a JSON object/, "parse"],
		['{"id":"x"}', /Missing string field `type`/, "parse"],
		['{"type":42}', /Missing string field `type`/, "parse"],
		['{"type":"fly_to_moon","id":"m"}', /Unknown command: fly_to_moon/, "fly_to_moon"],
		['{"type":"prompt","message":7}', /`message` must be string/, "prompt"],
		['{"type":"prompt"}', /missing field `message`/, "prompt"],
		['{"type":"prompt","message":"hi","colour":"red"}', /unknown field `colour`/, "prompt"],
		['{"type":"get_state","id":5}', /`id` must be a string/, "get_state"],
		['{"type":"get_state","sessionId":[]}', /`sessionId` must be a string/, "get_state"],
		['{"type":"set_thinking_level","level":"maximum"}', /level/, "set_thinking_level"],
		['{"type":"session_list","scope":"galaxy"}', /scope/, "session_list"],
		['{"type":"new_session","cwd":"/no/such/dir"}', /cwd \/no\/such\/dir does not exist: it must be an existing, readable directory/, "new_session"],
		['{"type":"fork","entryId":"nope"}', /not a user message/, "fork"],
		['{"type":"close_session"}', /needs the envelope field `sessionId`/, "close_session"],
	];
	let count = 0;
	for (const [frame, pattern, command] of cases) {
		client.sendRaw(frame);
		const response = await lastResponse(client, ++count);
		assert.equal(response.success, false, frame);
		assert.equal(response.command, command, frame);
		assert.match(response.error, pattern, frame);
	}
	const echoed = client.responses.find((r) => r.command === "fly_to_moon");
	assert.equal(echoed?.id, "m");
	assert.equal(client.closed, undefined, "the socket stays open after bad commands");
	client.close();
	await stillServing();
});

test("a binary frame closes that socket with 1003", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	client.sendRaw(Buffer.from('{"type":"ping"}'), true);
	const closed = await client.waitForClose();
	assert.equal(closed.code, 1003);
	assert.match(closed.reason, /binary/);
	await stillServing();
});

test("an oversized frame closes that socket with 1009", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	client.sendRaw(JSON.stringify({ type: "prompt", message: "x".repeat(MAX_FRAME_BYTES + 10) }));
	const closed = await client.waitForClose();
	assert.equal(closed.code, 1009);
	await stillServing();
});

test("/rpc: one command, JSONL, and every kind of bad request", async () => {
	const post = (body: string, type = "application/json") =>
		fetch(`${skiff.url}/rpc`, { method: "POST", headers: { "content-type": type }, body });
	const ok = await post(JSON.stringify({ type: "get_state", id: "r1" }));
	assert.equal(ok.status, 200);
	const state = await ok.json();
	assert.equal(state.id, "r1");
	assert.equal(state.success, true);

	const lines = await post('{"type":"ping","id":"a"}\n{bad\n{"type":"get_state","id":"b"}\n', "application/x-ndjson");
	assert.equal(lines.status, 200);
	const answers = (await lines.text()).trim().split("\n").map((l) => JSON.parse(l));
	assert.deepEqual(answers.map((a) => [a.id, a.success]), [["a", true], [undefined, false], ["b", true]]);

	const badJson = await post("{oops");
	assert.equal(badJson.status, 400);
	assert.match((await badJson.json()).error, /Failed to parse command/);
	const unknown = await post(JSON.stringify({ type: "nope" }));
	assert.equal(unknown.status, 400);
	assert.equal((await unknown.json()).error, "Unknown command: nope");
	const wrongType = await post("{}", "text/plain");
	assert.equal(wrongType.status, 415);
	const get = await fetch(`${skiff.url}/rpc`);
	assert.equal(get.status, 405);
	const huge = await post(JSON.stringify({ type: "prompt", message: "y".repeat(MAX_RPC_BODY_BYTES) }));
	assert.equal(huge.status, 413);
	assert.match(await huge.text(), /too large/);
	const empty = await post("");
	assert.equal(empty.status, 400);
	const notFound = await fetch(`${skiff.url}/nowhere`);
	assert.equal(notFound.status, 404);
	await stillServing();
});

test("a client that stops reading during a long reply gets all of it, merged, and nobody waits for it", async () => {
	// Pause the socket's reading so the server must queue for it (past what the kernel's loopback buffers
	// absorb), during a long reply prompted over /rpc (which has no event stream of its own). Being cut off
	// for going beyond the queue caps is tested with small caps in slow-clients.test.ts.
	const DELTAS = 100_000;
	const slow = await TestClient.connect(skiff.wsUrl);
	await slow.ok({ type: "subscribe" });
	const watcher = await TestClient.connect(skiff.wsUrl);
	await watcher.ok({ type: "subscribe" });
	const rawSocket = (slow.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
	rawSocket.pause();
	const rpc = async (command: object) =>
		(await fetch(`${skiff.url}/rpc`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(command) })).json();
	assert.equal((await rpc({ type: "prompt", message: `BENCH ${DELTAS}` })).success, true);
	await watcher.waitForEvent((e) => e.type === "agent_end", 120_000);
	await stillServing();
	rawSocket.resume();
	await slow.waitForEvent((e) => e.type === "agent_end", 60_000);
	const deltas = slow.events.filter((e) => e.type === "message_update" && e.assistantMessageEvent.type === "text_delta");
	assert.equal(deltas.map((e) => e.assistantMessageEvent.delta).join(""), "x".repeat(DELTAS), "no text lost");
	assert.ok(deltas.length < DELTAS, `merged: ${deltas.length} delta events for ${DELTAS} deltas`);
	const seqs = slow.events.map((e) => e.seq);
	assert.ok(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!), "seq keeps increasing");
	assert.equal(slow.closed, undefined);
	slow.close();
	watcher.close();
});
