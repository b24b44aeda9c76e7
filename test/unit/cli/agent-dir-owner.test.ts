/**
 * The agent directory's owner record, in one process: what is refused, what is taken over, and what is left
 * behind. Two real processes are in test/integration/agent-dir-owner.test.ts.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { AgentDirInUseError, claimAgentDir, OWNER_FILE } from "../../../src/cli/agent-dir-owner.js";
import { tempDir } from "../../support/skiff-process.js";

const DEAD_PID = 999_999_999; // above the kernel's pid limit: no process has it
const record = (fields: Record<string, unknown>) => `${JSON.stringify({ mode: "listener", since: new Date(0).toISOString(), nonce: "0011223344556677", ...fields })}\n`;
const stored = (dir: string) => JSON.parse(readFileSync(join(dir, OWNER_FILE), "utf8"));
const leftovers = (dir: string) => readdirSync(dir).filter((name) => name.startsWith(OWNER_FILE));

test("a held claim refuses another, naming the owner and how it is reached; released, the directory is free", async () => {
	const dir = tempDir();
	const claim = await claimAgentDir(dir, "listener");
	await assert.rejects(claimAgentDir(dir, "rpc"), (error: Error) => {
		assert.ok(error instanceof AgentDirInUseError);
		assert.equal(error.message, `another skiff (pid ${process.pid}, starting its listener) uses the agent directory ${dir}; stop it, or set SKIFF_AGENT_DIR to another directory`);
		return true;
	});
	claim.listening("http://127.0.0.1:8787");
	assert.equal(stored(dir).url, "http://127.0.0.1:8787");
	await assert.rejects(claimAgentDir(dir, "rpc"), /\(pid \d+, listening on http:\/\/127\.0\.0\.1:8787\)/);
	claim.release();
	claim.release();
	assert.deepEqual(leftovers(dir), []);
	const rpc = await claimAgentDir(dir, "rpc");
	await assert.rejects(claimAgentDir(dir, "listener"), /\(pid \d+, --mode rpc\)/);
	rpc.release();
});

test("a release leaves alone a record that is no longer its own", async () => {
	const dir = tempDir();
	const claim = await claimAgentDir(dir, "listener");
	const other = record({ pid: process.ppid });
	writeFileSync(join(dir, OWNER_FILE), other);
	claim.release();
	assert.equal(readFileSync(join(dir, OWNER_FILE), "utf8"), other);
});

test("a live owner that cannot be told from a reused pid is trusted, and the message says which file to remove", async () => {
	const dir = tempDir();
	writeFileSync(join(dir, OWNER_FILE), record({ pid: process.ppid, mode: "rpc" })); // no identity mark
	await assert.rejects(claimAgentDir(dir, "listener"), {
		message: `another skiff (pid ${process.ppid}, --mode rpc) uses the agent directory ${dir}; stop it, or set SKIFF_AGENT_DIR to another directory (if no skiff runs as pid ${process.ppid}, remove ${join(dir, OWNER_FILE)})`,
	});
});

test("stale records are taken over: a dead pid, this process's pid from an earlier process, and a file that is no record", async () => {
	for (const content of [record({ pid: DEAD_PID }), record({ pid: process.pid }), "{\"pid\": \"twelve\"}\n", ""]) {
		const dir = tempDir();
		writeFileSync(join(dir, OWNER_FILE), content);
		const claim = await claimAgentDir(dir, "listener");
		assert.equal(stored(dir).pid, process.pid, JSON.stringify(content));
		claim.release();
		assert.deepEqual(leftovers(dir), [], JSON.stringify(content));
	}
});

test("a takeover whose taker died halfway is taken over in turn", async () => {
	const dir = tempDir();
	const stale = record({ pid: DEAD_PID });
	writeFileSync(join(dir, OWNER_FILE), stale);
	// The dead taker's own takeover file, named for the record it was removing.
	const digest = createHash("sha256").update(stale).digest("hex").slice(0, 16);
	writeFileSync(join(dir, `${OWNER_FILE}.${digest}.takeover`), record({ pid: DEAD_PID, nonce: "8899aabbccddeeff" }));
	const claim = await claimAgentDir(dir, "rpc");
	assert.equal(stored(dir).pid, process.pid);
	claim.release();
	assert.deepEqual(leftovers(dir), []);
});

test("an agent directory where the record cannot be written is a clear error naming the file", async () => {
	const file = join(tempDir(), "not-a-directory");
	writeFileSync(file, "");
	await assert.rejects(claimAgentDir(file, "listener"), (error: Error) => {
		assert.match(error.message, new RegExp(`^cannot claim the agent directory: ${file}/skiff\\.lock, which marks it as used by one skiff, could not be written or read \\(ENOTDIR`));
		return true;
	});
});

test("a record's address with control characters is not printed", async () => {
	const dir = tempDir();
	writeFileSync(join(dir, OWNER_FILE), record({ pid: process.ppid, url: "http://127.0.0.1:1\u001b[2J\u001b]0;owned\u0007" }));
	await assert.rejects(claimAgentDir(dir, "listener"), (error: Error) => {
		assert.match(error.message, new RegExp(`^another skiff \\(pid ${process.ppid}, starting its listener\\) uses`));
		assert.doesNotMatch(error.message, /[\u0000-\u001f]/);
		return true;
	});
});
