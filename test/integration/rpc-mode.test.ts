/**
 * `skiff --mode rpc` as a process: standard output carries only JSON lines, commands sent at once wait for the
 * core, framing is strict, and the end of input or SIGTERM stops it cleanly with everything recorded.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { startRpcProcess } from "../support/rpc-process.js";
import { tempDir } from "../support/skiff-process.js";

let model: FakeOpenAiServer;

before(async () => {
	model = await startFakeOpenAi();
});

after(async () => {
	await model?.close();
});

function setup(args: string[] = ["--model", "fake/fake-model"]) {
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	const cwd = tempDir();
	return { agentDir, cwd, skiff: startRpcProcess({ agentDir, cwd, args }) };
}

/** The entries of the only session file under `agentDir`. */
function entries(agentDir: string): any[] {
	const sessions = join(agentDir, "sessions");
	const [folder] = readdirSync(sessions);
	const [file] = readdirSync(join(sessions, folder!)).filter((name) => name.endsWith(".jsonl")).sort();
	return readFileSync(join(sessions, folder!, file!), "utf8")
		.split("\n")
		.filter(Boolean)
		.map((line) => JSON.parse(line));
}

/** The message entries of the only session file under `agentDir`. */
function recorded(agentDir: string): any[] {
	return entries(agentDir)
		.filter((entry) => entry.type === "message")
		.map((entry) => entry.message);
}

const lastEntry = (agentDir: string) => entries(agentDir).at(-1);

test("commands sent at once wait for the core; CRLF and strict framing; only JSON on stdout; end of input exits 0 with all recorded", async () => {
	const { agentDir, skiff } = setup();
	skiff.send(`${JSON.stringify({ type: "get_state", id: "first" })}\r`); // CRLF
	const state = await skiff.waitFor((l) => l.id === "first");
	assert.equal(state.success, true);
	assert.equal(state.data.model.id, "fake-model");

	const prompted = await skiff.request({ type: "prompt", message: 'REPLY_JSON "a\\u2028b"' });
	assert.equal(prompted.success, true);
	const end = await skiff.waitFor((l) => l.type === "agent_end");
	assert.equal(end.sessionId, state.data.sessionId);
	assert.equal(typeof end.seq, "number");

	skiff.send(`{"type":"ping","pad":"${"x".repeat(4 * 1024 * 1024)}"}`);
	const oversize = await skiff.waitFor((l) => l.command === "parse");
	assert.equal(oversize.code, "parse_error");
	assert.match(oversize.error, /over the limit of 4194304 bytes/);

	const bash = await skiff.request({ type: "bash", command: "echo out; echo err >&2" });
	assert.equal(bash.data.exitCode, 0);
	assert.match(bash.data.output, /out/);
	assert.ok(skiff.lines.some((l) => l.type === "bash_execution_end" && l.message.command === "echo out; echo err >&2"));

	skiff.child.stdin.end();
	assert.equal(await skiff.exited, 0);
	assert.ok(skiff.stdout().endsWith("\n"));
	assert.ok(skiff.lines.some((l) => l.type === "session_unloaded" && l.reason === "shutdown"), "the shutdown's events were flushed");
	assert.match(skiff.stderr(), /end of input/, "messages for people go to stderr");
	const messages = recorded(agentDir);
	assert.deepEqual(
		messages.map((m) => m.role),
		["user", "assistant", "bashExecution"],
	);
	assert.equal(messages[1].content[0].text, "a\u2028b", "U+2028 inside a JSON string survives both ways");
});

test("input that ends before the runtime is loaded is still answered in full before skiff exits 0", async () => {
	const { skiff } = setup();
	skiff.send({ type: "get_state", id: "a" });
	skiff.send({ type: "bash", command: "echo piped", id: "b" });
	skiff.child.stdin.end();
	assert.equal(await skiff.exited, 0);
	assert.equal(skiff.lines.find((l) => l.id === "a")?.success, true);
	const bash = skiff.lines.find((l) => l.id === "b");
	assert.equal(bash?.success, true, JSON.stringify(bash));
});

test("SIGTERM during a run stops it, records the partial reply and exits 0", async () => {
	const { agentDir, skiff } = setup();
	await skiff.request({ type: "prompt", message: "REPLY one two three four five six seven eight nine ten\nSLOW 300" });
	await skiff.waitFor((l) => l.type === "message_update");
	skiff.child.kill("SIGTERM");
	assert.equal(await skiff.exited, 0);
	assert.ok(skiff.lines.some((l) => l.type === "agent_end"));
	const messages = recorded(agentDir);
	assert.equal(messages.at(-1).role, "assistant");
	assert.equal(messages.at(-1).stopReason, "aborted");
	// Followed by what says why it stopped, for whoever opens the session after the restart.
	const last = lastEntry(agentDir);
	assert.equal(last.type, "custom_message");
	assert.equal(last.customType, "run_interrupted");
	assert.equal(last.display, false);
});

test("when the core cannot start, waiting commands are answered with the reason and skiff exits 1", async () => {
	const { skiff } = setup(["--model", "fake/no-such-model"]);
	skiff.send({ type: "get_state", id: "early" });
	const answer = await skiff.waitFor((l) => l.id === "early");
	assert.equal(answer.success, false);
	assert.equal(answer.code, "unavailable");
	assert.match(answer.error, /failed to start: Unknown model "fake\/no-such-model"/);
	assert.equal(await skiff.exited, 1);
	assert.match(skiff.stderr(), /Unknown model/);
});

test("switch_session opens a session file anywhere (the operator's process, as in pi) and makes it the current session", async () => {
	const { skiff } = setup();
	const primary = (await skiff.request({ type: "get_state" })).data.sessionId;
	const elsewhere = join(tempDir(), "elsewhere.jsonl");
	const message = { role: "user", content: [{ type: "text", text: "kept elsewhere" }], timestamp: 1 };
	writeFileSync(
		elsewhere,
		`${JSON.stringify({ type: "session", version: 3, id: "elsewhere-1", timestamp: "2026-01-01T00:00:00.000Z", cwd: tempDir() })}\n` +
			`${JSON.stringify({ type: "message", id: "m1", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message })}\n`,
	);
	const switched = await skiff.request({ type: "switch_session", sessionPath: elsewhere });
	assert.equal(switched.success, true, switched.error);
	assert.equal(switched.data.sessionId, "elsewhere-1");
	assert.equal((await skiff.request({ type: "get_state" })).data.sessionId, "elsewhere-1", "commands now address it");
	const from = skiff.lines.length;
	await skiff.request({ type: "prompt", message: "REPLY here" });
	const end = await skiff.waitFor((l) => l.type === "agent_end", from);
	assert.equal(end.sessionId, "elsewhere-1");
	assert.equal((await skiff.request({ type: "get_state", sessionId: primary })).data.sessionId, primary, "others by sessionId");
	skiff.child.stdin.end();
	assert.equal(await skiff.exited, 0);
	assert.ok(readFileSync(elsewhere, "utf8").includes('"text":"here"'), "recorded in its own file");
});
