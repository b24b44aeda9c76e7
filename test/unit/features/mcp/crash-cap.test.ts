/**
 * The restart rule of a crashing MCP server, with the suite's real stdio server (test/support/mcp/stdio-server.mjs)
 * made to exit by its `crash` tool: each crash restarts it after a backoff that doubles (and the log says so,
 * counting "restart n of at most 5"); the sixth crash in a row leaves it failed, saying it is not restarted again,
 * and no restart follows; mcp_restart's `restart()` starts it again with its count forgotten. The backoff starts
 * at 1 ms here (the `firstBackoffMs` hook) so that the five waits take no 31 s; the rule is the same.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import { serverSpec } from "../../../../src/features/mcp/config.js";
import { MAX_RESTARTS, McpServerRuntime } from "../../../../src/features/mcp/server.js";
import { REPO_ROOT, tempDir } from "../../../support/skiff-process.js";
import { until } from "../../../support/until.js";

const SERVER = join(REPO_ROOT, "test", "support", "mcp", "stdio-server.mjs");
const log: string[] = [];
/** The lines announcing a restart (the log also has the warnings about its tools). */
const restarts = () => log.filter((line) => /restarting in/.test(line));
const runtime = new McpServerRuntime(serverSpec("crashy", "global", { command: process.execPath, args: [SERVER] }, tempDir()), {
	version: "0.0.0-test",
	log: (line) => log.push(line),
	changed: () => undefined,
	firstBackoffMs: 1,
});
after(() => runtime.stop());

/** Waits until it is ready, then has it exit through its `crash` tool; resolves once the crash was seen. */
async function crashOnce(): Promise<void> {
	await until(() => runtime.state === "ready", () => `ready (now ${runtime.state}: ${runtime.lastError})`);
	const pid = runtime.pid;
	const crash = runtime.tools.find((t) => t.serverName === "crash")!;
	await crash.tool.execute({}, undefined).catch(() => undefined); // the call fails with the connection
	await until(() => runtime.state !== "ready" || runtime.pid !== pid, "the crash to be seen");
}

test(`a crashing server restarts with a doubling backoff, then stays failed after ${MAX_RESTARTS} restarts and says so`, async () => {
	runtime.ensureStarted();
	for (let n = 1; n <= MAX_RESTARTS; n++) {
		await crashOnce();
		await until(() => restarts().length >= n, `restart ${n} announced`);
		assert.match(restarts()[n - 1]!, new RegExp(`^mcp: server crashy stopped \\(exited with code 3\\); restarting in ${2 ** (n - 1)} ms \\(restart ${n} of at most ${MAX_RESTARTS}\\)$`));
		assert.equal(runtime.restarts, n);
	}
	await crashOnce();
	await until(() => runtime.state === "failed", () => `failed (now ${runtime.state})`);
	assert.match(runtime.lastError!, /exited with code 3\) after 5 restarts in a row; not restarted again \(mcp_restart starts it\)/);
	assert.equal(runtime.pid, undefined);
	assert.equal(restarts().length, MAX_RESTARTS, "no sixth restart");
	// Longer than the sixth backoff would be (32 ms, a timer set earlier, so it would fire first): still failed.
	await new Promise((resolve) => setTimeout(resolve, 50));
	assert.equal(runtime.state, "failed");

	await runtime.restart();
	assert.equal(runtime.state, "ready");
	assert.equal(runtime.restarts, 0);
	await crashOnce();
	await until(() => restarts().length > MAX_RESTARTS, "the count started again");
	assert.match(restarts().at(-1)!, /restarting in 1 ms \(restart 1 of at most 5\)/);
});
