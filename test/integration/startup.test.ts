/** Start-up rules, banners, refusals, running without credentials, and clean shutdown. */
import assert from "node:assert/strict";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { runSkiff, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

// Flags, addresses, origins, bind rules and token files are checked by unit tests (test/unit/cli,
// test/unit/listener); this checks that the process turns each kind of refusal into exit status 2 with the
// reason on stderr.
test("usage mistakes exit 2 with a message that names the problem", async () => {
	const agentDir = tempDir();
	const cases: Array<[string[], RegExp[]]> = [
		[[], [/pass --listen <host:port>/]],
		[["--listen", "0.0.0.0:0"], [/0\.0\.0\.0/, /--listen-allow-insecure-remote/]],
	];
	const runs = await Promise.all(cases.map(([args]) => runSkiff(args, { SKIFF_AGENT_DIR: agentDir })));
	for (const [i, { code, stderr }] of runs.entries()) {
		const [args, patterns] = cases[i]!;
		assert.equal(code, 2, `${args.join(" ")}: ${stderr}`);
		for (const pattern of patterns) assert.match(stderr, pattern, args.join(" "));
	}
});

test("the opt-in binds plaintext remote with a loud warning", async () => {
	// 0.0.0.0 with port 0: binds every interface on an ephemeral port; nothing outside loopback is contacted.
	const skiff = await startSkiff({ agentDir: tempDir(), listen: "0.0.0.0:0", args: ["--listen-allow-insecure-remote"] });
	assert.match(skiff.stderr(), /WARNING/);
	assert.match(skiff.stderr(), /plaintext|TLS/i);
	assert.doesNotMatch(skiff.banner, /loopback/);
	assert.equal(await skiff.stop(), 0);
});

test("loopback banners say whether authentication is on", async () => {
	const agentDir = tempDir();
	const open = await startSkiff({ agentDir });
	assert.match(open.banner, /^Control plane listening on http:\/\/127\.0\.0\.1:\d+ \(loopback only\)$/);
	assert.equal(await open.stop(), 0);

	const dir = tempDir();
	const tokenFile = join(dir, "token");
	writeFileSync(tokenFile, "  s3cret-token-value\n", { mode: 0o600 });
	const locked = await startSkiff({ agentDir, args: ["--listen-token-file", tokenFile] });
	assert.match(locked.banner, /^Control plane listening on http:\/\/127\.0\.0\.1:\d+ \(loopback, authentication enabled\)$/);
	assert.doesNotMatch(locked.stdout() + locked.stderr(), /s3cret-token-value/);
	assert.equal(await locked.stop(), 0);
	assert.match(locked.stderr(), /warning: the token in \S+ is shorter than 20 characters/, "a short token can be guessed");
});

test("without any credentials the service starts and a prompt explains how to configure a model", async () => {
	const agentDir = tempDir();
	const skiff = await startSkiff({ agentDir });
	await skiff.ready;
	assert.match(skiff.stderr(), /No model/);
	const client = await TestClient.connect(skiff.wsUrl);
	const response = await client.request({ type: "prompt", message: "hello" });
	assert.equal(response.success, false);
	assert.match(response.error!, /No model is configured/);
	assert.match(response.error!, /models\.json/);
	assert.match(response.error!, /API_KEY/);
	client.close();
	assert.equal(await skiff.stop(), 0);
});

test("SIGTERM during a run records the partial reply and exits 0 (stdin closed all along)", async () => {
	const model = await startFakeOpenAi();
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	const skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model", "--session-id", "shutdown-check"] });
	const client = await TestClient.connect(skiff.wsUrl);
	await client.ok({ type: "prompt", message: "REPLY alpha beta gamma delta epsilon zeta eta theta\nSLOW 400\nremember-this-prompt" });
	await client.waitForEvent((e) => e.type === "message_update" && e.assistantMessageEvent.type === "text_delta");
	const closed = client.waitForClose();
	assert.equal(await skiff.stop("SIGTERM"), 0);
	assert.equal((await closed).code, 1001);
	const sessions = join(agentDir, "sessions");
	const folder = readdirSync(sessions)[0]!;
	const file = readdirSync(join(sessions, folder)).find((f) => f.endsWith("_shutdown-check.jsonl"))!;
	const lines = readFileSync(join(sessions, folder, file), "utf8").trim().split("\n").map((l) => JSON.parse(l));
	const messages = lines.filter((l) => l.type === "message").map((l) => l.message);
	assert.match(JSON.stringify(messages[0]), /remember-this-prompt/);
	const reply = messages.find((m) => m.role === "assistant");
	assert.equal(reply?.stopReason, "aborted");
	await model.close();
});

test("the banner comes before the agent runtime loads; commands sent as soon as it is out wait for it and succeed", async () => {
	const agentDir = tempDir();
	const skiff = await startSkiff({ agentDir });
	const client = await TestClient.connect(skiff.wsUrl);
	const [state, pong] = await Promise.all([client.ok({ type: "get_state" }), client.ok({ type: "ping" })]);
	assert.equal(typeof state.sessionId, "string");
	assert.equal(pong.pong, true);
	await skiff.ready;
	assert.ok(skiff.stdout().indexOf("Control plane listening") < skiff.stdout().indexOf("Ready"));
	client.close();
	assert.equal(await skiff.stop(), 0);
});

test("SIGTERM while the runtime is still loading exits 0 once it has started", async () => {
	const skiff = await startSkiff({ agentDir: tempDir() });
	assert.equal(await skiff.stop("SIGTERM"), 0);
});
