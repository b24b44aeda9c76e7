import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCliArgs, UsageError } from "../../../src/cli/args.js";

test("session flags map to start-up choices", () => {
	assert.deepEqual(parseCliArgs(["--listen", "127.0.0.1:1"]).session, { kind: "new" });
	assert.deepEqual(parseCliArgs(["--continue"]).session, { kind: "continue" });
	assert.deepEqual(parseCliArgs(["-r", "abc"]).session, { kind: "open", reference: "abc" });
	assert.deepEqual(parseCliArgs(["--session", "/x/y.jsonl"]).session, { kind: "open", reference: "/x/y.jsonl" });
	assert.deepEqual(parseCliArgs(["--session-id", "my-id"]).session, { kind: "id", id: "my-id" });
	assert.deepEqual(parseCliArgs(["--no-session"]).session, { kind: "memory" });
});

test("bad flags are usage errors that name the flag", () => {
	const cases: Array<[string[], RegExp]> = [
		[["--continue", "--no-session"], /--continue and --no-session cannot be combined/],
		[["--thinking", "huge"], /--thinking "huge" is not a level/],
		[["--session-id", "../etc"], /--session-id "..\/etc" is not a valid id/],
		[["--model", "nomodel"], /--model "nomodel" must be provider\/id/],
		[["--max-sessions", "0"], /--max-sessions "0" must be an integer/],
		[["--listen-token-file", "t"], /--listen-token-file needs --listen/],
		[["--bogus"], /Unknown option '--bogus'/],
		[["stray"], /stray/],
		[["--resume", " "], /--resume needs a session id/],
	];
	for (const [argv, pattern] of cases) {
		assert.throws(() => parseCliArgs(argv), (error: unknown) => error instanceof UsageError && pattern.test(error.message), argv.join(" "));
	}
});

test("listener flags and agent flags are read", () => {
	const o = parseCliArgs(["--listen", "0.0.0.0:9", "--listen-allow-insecure-remote", "--listen-token-file", "/t", "--model", "fake/m", "--thinking", "low", "-C", "/tmp", "--max-sessions", "3"]);
	assert.equal(o.listen, "0.0.0.0:9");
	assert.equal(o.listenAllowInsecureRemote, true);
	assert.equal(o.listenTokenFile, "/t");
	assert.equal(o.model, "fake/m");
	assert.equal(o.thinking, "low");
	assert.equal(o.cwd, "/tmp");
	assert.equal(o.maxSessions, 3);
});

test("--mode rpc takes pi's RpcClient flags: --provider with --model <id>, and the session flags", () => {
	const o = parseCliArgs(["--mode", "rpc", "--provider", "fake", "--model", "fake-model", "--session", "/s.jsonl"]);
	assert.equal(o.mode, "rpc");
	assert.equal(o.model, "fake/fake-model");
	assert.deepEqual(o.session, { kind: "open", reference: "/s.jsonl" });
	assert.equal(parseCliArgs(["--provider", "fake", "--model", "fake/fake-model"]).model, "fake/fake-model", "a provider/id model is kept");
	assert.equal(parseCliArgs(["--provider", "openrouter", "--model", "anthropic/claude"]).model, "openrouter/anthropic/claude");
	assert.equal(parseCliArgs(["--mode", "rpc", "--model", "fake/fake-model"]).model, "fake/fake-model");
	assert.equal(parseCliArgs(["--listen", "127.0.0.1:1"]).mode, "listen");
	const cases: Array<[string[], RegExp]> = [
		[["--mode", "json"], /--mode "json" is not supported: the only mode is rpc/],
		[["--mode", "rpc", "--listen", "127.0.0.1:1"], /--mode rpc and --listen cannot be combined/],
		[["--provider", "fake"], /--provider needs --model/],
		[["--provider", "a/b", "--model", "m"], /--provider "a\/b" must be a provider name/],
	];
	for (const [argv, pattern] of cases) {
		assert.throws(() => parseCliArgs(argv), (error: unknown) => error instanceof UsageError && pattern.test(error.message), argv.join(" "));
	}
});

test("the last --listen wins, so `npm start -- --listen <addr>` picks another address", () => {
	assert.equal(parseCliArgs(["--listen", "127.0.0.1:8787", "--listen", "127.0.0.1:9000"]).listen, "127.0.0.1:9000");
});
