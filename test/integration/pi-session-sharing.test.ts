/**
 * Session files shared with pi: pi's own CLI continues what Skiff recorded and Skiff continues what pi
 * recorded, in one agent directory (PI_CODING_AGENT_DIR = SKIFF_AGENT_DIR). When pi writes to a file while
 * Skiff has it loaded, Skiff reloads the session before using it again: nothing of pi's is lost and the
 * conversation does not branch.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { RpcClient } from "../support/pi-rpc-client.js";
import { type FakeOpenAiServer, startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { REPO_ROOT, tempDir } from "../support/skiff-process.js";

const PI_CLI = join(REPO_ROOT, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js");
const SKIFF_CLI = join(REPO_ROOT, "bin", "skiff");

let model: FakeOpenAiServer;
/** Model requests whose prompt holds HOLD wait until this opens. */
let gate: { open: () => void; opened: Promise<void> } = newGate();
const clients: RpcClient[] = [];

function newGate() {
	let open!: () => void;
	const opened = new Promise<void>((resolve) => (open = resolve));
	return { open, opened };
}

before(async () => {
	model = await startFakeOpenAi({
		onRequest: async (request) => {
			const last = request.body.messages.filter((m: any) => m.role === "user").at(-1);
			const text = typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
			if (text.includes("HOLD")) await gate.opened;
		},
	});
});

after(async () => {
	for (const client of clients) await client.stop();
	await model?.close();
});

/** pi's CLI or Skiff in RPC mode, on one agent directory, driven by pi's RpcClient. */
async function start(program: "pi" | "skiff", agentDir: string, cwd: string, args: string[] = []): Promise<RpcClient> {
	const client = new RpcClient({
		cliPath: program === "pi" ? PI_CLI : SKIFF_CLI,
		cwd,
		env: { PI_CODING_AGENT_DIR: agentDir, SKIFF_AGENT_DIR: agentDir, PI_OFFLINE: "1" },
		provider: "fake",
		model: "fake-model",
		args,
	});
	clients.push(client);
	await client.start();
	return client;
}

async function stop(client: RpcClient): Promise<void> {
	await client.stop();
	clients.splice(clients.indexOf(client), 1);
}

function setup() {
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	return { agentDir, cwd: tempDir() };
}

/** The file's entries; asserts it is one unbranched chain (each entry's parent is the entry before it). */
function chain(file: string): any[] {
	const [header, ...entries] = readFileSync(file, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((line) => JSON.parse(line));
	assert.equal(header.type, "session");
	entries.forEach((entry, index) => assert.equal(entry.parentId, index === 0 ? null : entries[index - 1].id, `entry ${index + 1} continues the one before`));
	return entries;
}

const textOf = (message: any) => (typeof message.content === "string" ? message.content : message.content.map((c: any) => c.text ?? "").join(""));
const said = (messages: any[]) => messages.filter((m) => m.role === "user" || m.role === "assistant").map((m) => `${m.role}:${textOf(m)}`);

test("pi continues a session Skiff recorded, and Skiff continues a session pi recorded", async () => {
	const { agentDir, cwd } = setup();
	const skiff = await start("skiff", agentDir, cwd);
	await skiff.promptAndWait("REPLY skiff answer one");
	const skiffFile = (await skiff.getState()).sessionFile!;
	await stop(skiff);

	const pi = await start("pi", agentDir, cwd, ["--session", skiffFile]);
	assert.deepEqual(said(await pi.getMessages()), ["user:REPLY skiff answer one", "assistant:skiff answer one"], "pi reads Skiff's file");
	await pi.promptAndWait("REPLY pi answer two");
	assert.equal((await pi.getState()).sessionFile, skiffFile);
	await stop(pi);
	const both = ["user:REPLY skiff answer one", "assistant:skiff answer one", "user:REPLY pi answer two", "assistant:pi answer two"];
	assert.deepEqual(said(chain(skiffFile).filter((e) => e.type === "message").map((e) => e.message)), both);

	const piFirst = await start("pi", agentDir, cwd);
	await piFirst.promptAndWait("REPLY pi answer one");
	const piFile = (await piFirst.getState()).sessionFile!;
	await stop(piFirst);

	const skiffAgain = await start("skiff", agentDir, cwd, ["--session", piFile]);
	assert.deepEqual(said(await skiffAgain.getMessages()), ["user:REPLY pi answer one", "assistant:pi answer one"], "Skiff reads pi's file");
	await skiffAgain.promptAndWait("REPLY skiff answer two");
	await stop(skiffAgain);

	const piReads = await start("pi", agentDir, cwd, ["--session", piFile]);
	assert.deepEqual(said(await piReads.getMessages()), ["user:REPLY pi answer one", "assistant:pi answer one", "user:REPLY skiff answer two", "assistant:skiff answer two"]);
	await stop(piReads);
	chain(piFile);
});

test("pi writes to a session Skiff has loaded: Skiff reloads it before its next prompt, losing nothing of pi's, not branching", async () => {
	const { agentDir, cwd } = setup();
	const skiff = await start("skiff", agentDir, cwd);
	const events: any[] = [];
	skiff.onEvent((event) => events.push(event));
	await skiff.promptAndWait("REPLY skiff first");
	const { sessionFile, sessionId } = await skiff.getState();

	const pi = await start("pi", agentDir, cwd, ["--session", sessionFile!]);
	await pi.promptAndWait("REPLY pi in between");
	await stop(pi);

	await skiff.promptAndWait("REPLY skiff after");
	const reloaded = events.find((e) => e.type === "session_reloaded");
	assert.deepEqual({ ...reloaded, seq: 0 }, { type: "session_reloaded", sessionId, seq: 0, reason: "changed_on_disk", discarded: 0 });
	const lastRun = events.map((e) => e.type).lastIndexOf("agent_start");
	assert.ok(events.indexOf(reloaded) < lastRun, "reloaded before the prompt ran");
	assert.ok(!events.some((e) => e.type === "recording_failed"));
	const expected = [
		"user:REPLY skiff first",
		"assistant:skiff first",
		"user:REPLY pi in between",
		"assistant:pi in between",
		"user:REPLY skiff after",
		"assistant:skiff after",
	];
	assert.deepEqual(said(await skiff.getMessages()), expected);
	assert.equal((await skiff.getState()).sessionId, sessionId, "the same session, under its id");
	assert.deepEqual(said(chain(sessionFile!).filter((e) => e.type === "message").map((e) => e.message)), expected);
});

test("pi writes while a Skiff run is active: Skiff's refused writes are reported, then the file wins on reload", async () => {
	const { agentDir, cwd } = setup();
	gate = newGate();
	const skiff = await start("skiff", agentDir, cwd);
	const events: any[] = [];
	skiff.onEvent((event) => events.push(event));
	const idle = skiff.waitForIdle();
	await skiff.prompt("HOLD\nREPLY skiff held"); // acknowledged once recorded; the model call waits at the gate
	const { sessionFile } = await skiff.getState();

	const pi = await start("pi", agentDir, cwd, ["--session", sessionFile!]);
	await pi.promptAndWait("REPLY pi meanwhile");
	await stop(pi);
	gate.open();
	await idle;
	const failed = events.find((e) => e.type === "recording_failed");
	assert.equal(failed?.code, "ECHANGED", "Skiff's reply could not be appended, and said so");

	const messages = await skiff.getMessages(); // the next command reloads the idle session
	const reloaded = events.find((e) => e.type === "session_reloaded");
	assert.equal(reloaded?.discarded, 1, "the reply that could not be recorded is dropped, and counted");
	const expected = ["user:HOLD\nREPLY skiff held", "user:REPLY pi meanwhile", "assistant:pi meanwhile"];
	assert.deepEqual(said(messages), expected);
	await skiff.promptAndWait("REPLY skiff continues");
	assert.deepEqual(said(chain(sessionFile!).filter((e) => e.type === "message").map((e) => e.message)), [
		...expected,
		"user:REPLY skiff continues",
		"assistant:skiff continues",
	]);
});
