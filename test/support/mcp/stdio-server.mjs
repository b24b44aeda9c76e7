#!/usr/bin/env node
/**
 * The test MCP server over stdio (tools.mjs), and the ways a server goes wrong, chosen by its first argument:
 *   --garbage      writes lines that are not JSON-RPC to standard output, then works
 *   --exit-now     exits at once, with a message on standard error
 *   --no-init      reads its input and never answers (so `initialize` times out); writes its pid to $MCP_TEST_LOG
 *   --grandchild   starts a long `sleep` of its own and writes its pid to $MCP_TEST_LOG (for the orphan test)
 */
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

const mode = process.argv[2];
if (mode === "--exit-now") {
	process.stderr.write("fatal: cannot open the database\n");
	process.exit(2);
}
if (mode === "--no-init") {
	if (process.env.MCP_TEST_LOG) appendFileSync(process.env.MCP_TEST_LOG, `mute ${process.pid}\n`);
	process.stdin.resume();
	setInterval(() => undefined, 60_000);
} else {
	if (mode === "--garbage") process.stdout.write("Starting server...\nnot json {\n");
	if (mode === "--grandchild") {
		const child = spawn("sleep", ["1000"], { stdio: "ignore" });
		appendFileSync(process.env.MCP_TEST_LOG, `server ${process.pid}\ngrandchild ${child.pid}\n`);
	}
	// Loaded here, not as static imports: those would load the SDK before --no-init writes its pid, and on a loaded
	// machine that outlasted the server's 1 s start timeout, so it was stopped before saying it had started.
	const [{ StdioServerTransport }, { createTestServer }] = await Promise.all([import("@modelcontextprotocol/sdk/server/stdio.js"), import("./tools.mjs")]);
	await createTestServer().connect(new StdioServerTransport());
}
