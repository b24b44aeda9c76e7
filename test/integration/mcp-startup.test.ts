/**
 * Start-up stays as it was without MCP servers: the MCP SDK is not in the bundle and is never loaded by a skiff
 * whose settings configure no server, through a session and a turn. (With servers, mcp.test.ts runs the SDK from
 * the same bundle.) A preloaded hook records every module of the SDK that is required.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { startFakeOpenAi } from "../support/fake-openai.js";
import { fakeModelHome } from "../support/fake-model-home.js";
import { REPO_ROOT, startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

test("a skiff with no MCP server configured never loads the MCP SDK, and the bundle does not hold it", async () => {
	assert.ok(!readFileSync(join(REPO_ROOT, "dist", "bundle", "skiff.cjs"), "utf8").includes("class StreamableHTTPClientTransport"));
	const model = await startFakeOpenAi();
	const home = fakeModelHome(model.url);
	const loads = join(tempDir(), "loads.txt");
	writeFileSync(loads, "");
	const skiff = await startSkiff({
		agentDir: home.agentDir,
		cwd: home.cwd,
		args: ["--model", "fake/fake-model"],
		env: { NODE_OPTIONS: `--require ${join(REPO_ROOT, "test", "support", "mcp", "record-loads.cjs")}`, MCP_LOADS_FILE: loads },
	});
	try {
		const client = await TestClient.connect(skiff.wsUrl);
		const sessionId = await client.newSession();
		await client.turn(sessionId, "REPLY hello");
		const { servers } = await client.ok({ type: "mcp_list" });
		assert.deepEqual(servers, []);
		client.close();
	} finally {
		await skiff.stop();
		await model.close();
	}
	assert.ok(existsSync(loads));
	assert.equal(readFileSync(loads, "utf8"), "", "no module of the SDK was required");
});
