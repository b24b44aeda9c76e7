/** Regression tests of protocol defects found by writing a client from docs/protocol.md alone. */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { type SkiffProcess, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

let model: FakeOpenAiServer;
let skiff: SkiffProcess;

before(async () => {
	model = await startFakeOpenAi();
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model"] });
});

after(async () => {
	await skiff?.stop();
	await model?.close();
});

async function say(client: TestClient, text: string, sessionId?: string): Promise<void> {
	const from = client.events.length;
	await client.ok({ type: "prompt", message: text, sessionId });
	await client.waitForEvent((e) => e.type === "agent_end" && (!sessionId || e.sessionId === sessionId), 20_000, from);
}

const rpc = (body: string, contentType = "application/json") =>
	fetch(`${skiff.url}/rpc`, { method: "POST", headers: { "content-type": contentType }, body }).then(async (r) => ({ status: r.status, text: await r.text() }));

test("POST /rpc with application/json reads one JSON document, pretty-printed or not; JSONL only for its media types", async () => {
	const pretty = await rpc(JSON.stringify({ type: "ping", id: "p1" }, null, 2));
	assert.equal(pretty.status, 200, pretty.text);
	assert.equal(JSON.parse(pretty.text).data.pong, true);
	const lines = await rpc(`${JSON.stringify({ type: "ping", id: "a" })}\n${JSON.stringify({ type: "ping", id: "b" })}\n`, "application/x-ndjson");
	assert.deepEqual(lines.text.trim().split("\n").map((l) => JSON.parse(l).id), ["a", "b"]);
	const twoDocuments = await rpc(`${JSON.stringify({ type: "ping" })}\n${JSON.stringify({ type: "ping" })}`);
	assert.equal(twoDocuments.status, 400, "two documents are not one");
	assert.equal(JSON.parse(twoDocuments.text).code, "parse_error");
});

test("subscribe replays only from a known numbering: no epoch, another epoch, or a seq beyond the newest means resync", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const session = await client.ok({ type: "new_session" });
	await say(client, "REPLY numbered", session.sessionId);
	const { epoch, lastSeq } = await client.ok({ type: "get_state", sessionId: session.sessionId });
	client.close();
	const cases: Array<[Record<string, unknown>, boolean]> = [
		[{ sinceSeq: 1 }, true],
		[{ sinceSeq: 1, epoch: "another-process" }, true],
		[{ sinceSeq: lastSeq + 5, epoch }, true],
		[{ sinceSeq: 1, epoch }, false],
	];
	for (const [fields, resync] of cases) {
		const fresh = await TestClient.connect(skiff.wsUrl);
		const result = await fresh.ok({ type: "subscribe", sessionId: session.sessionId, ...fields });
		assert.equal(result.resync, resync, JSON.stringify(fields));
		assert.equal(result.seq, lastSeq, "seq: the newest event, every one up to it is the client's now");
		assert.equal(result.replayed, resync ? 0 : lastSeq - 1);
		assert.equal(fresh.events.length, result.replayed, "replayed events arrive before the response");
		fresh.close();
	}
});

test("close_session of a recorded session that is not loaded succeeds (nothing to unload); an unknown id fails", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const session = await client.ok({ type: "new_session" });
	await say(client, "REPLY kept", session.sessionId);
	assert.deepEqual(await client.ok({ type: "close_session", sessionId: session.sessionId }), { closed: true, sessionId: session.sessionId, wasLoaded: true });
	assert.deepEqual(await client.ok({ type: "close_session", sessionId: session.sessionId }), { closed: true, sessionId: session.sessionId, wasLoaded: false });
	const unknown = await client.request({ type: "close_session", sessionId: "no-such-session" });
	assert.equal(unknown.code, "unknown_session");
	client.close();
});

test("set_model tells every client following the session", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const other = await TestClient.connect(skiff.wsUrl);
	const session = await client.ok({ type: "new_session" });
	await other.ok({ type: "subscribe", sessionId: session.sessionId });
	await client.ok({ type: "set_model", sessionId: session.sessionId, provider: "fake", modelId: "fake-reasoner" });
	const event = await other.waitForEvent((e) => e.type === "model_changed");
	assert.equal(event.model.id, "fake-reasoner");
	assert.equal(event.sessionId, session.sessionId);
	client.close();
	other.close();
});

test("persisted is true only once the session file exists", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const session = await client.ok({ type: "new_session" });
	assert.equal(session.state.persisted, false);
	await say(client, "REPLY first", session.sessionId);
	const [first] = (await client.ok({ type: "get_fork_messages", sessionId: session.sessionId })).messages;
	const fork = await client.ok({ type: "fork", sessionId: session.sessionId, entryId: first.entryId });
	assert.equal(fork.state.persisted, existsSync(fork.state.sessionFile), "a fork before the first message has no file yet");
	assert.equal(fork.state.persisted, false);
	client.close();
});

test("enum errors list the allowed values; mislabelled images are refused; every error has a code", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const level = await client.request({ type: "set_thinking_level", level: "lots" });
	assert.equal(level.code, "invalid_command");
	assert.match(level.error!, /`level` must be one of off, minimal, low, medium, high, xhigh \(got "lots"\)/);
	const scope = await client.request({ type: "session_list", scope: "everything" });
	assert.match(scope.error!, /`scope` must be one of project, all/);
	const gif = Buffer.from("GIF89a\x01\x00\x01\x00", "latin1").toString("base64");
	const mislabelled = await client.request({ type: "prompt", message: "look", images: [{ type: "image", data: gif, mimeType: "image/png" }] });
	assert.equal(mislabelled.code, "invalid_command");
	assert.match(mislabelled.error!, /`images.0` is declared image\/png but its data does not start like one/);
	const busy = await client.request({ type: "steer", message: "nothing runs" });
	assert.equal(busy.code, "conflict");
	client.close();
});

test("a prompt sent while pi compacts on its own (a reply filled the context) waits for it instead of being refused", async () => {
	const client = await TestClient.connect(skiff.wsUrl);
	const session = await client.ok({ type: "new_session" });
	await say(client, "BENCH 30000", session.sessionId); // 30,000 characters: past the fake model's auto-compaction threshold
	const state = await client.ok({ type: "get_state", sessionId: session.sessionId });
	assert.equal(state.isStreaming, false);
	const from = client.events.length;
	await client.ok({ type: "prompt", message: "REPLY after compaction", sessionId: session.sessionId }, 30_000);
	await client.waitForEvent((e) => e.type === "agent_end" && e.sessionId === session.sessionId, 30_000, from);
	assert.ok(client.events.some((e) => e.type === "compaction_end" && e.sessionId === session.sessionId), "pi compacted");
	client.close();
});
