/**
 * `get_messages` with `last`: the newest messages of a long session only, with `total` counting them all, so a
 * client can show the end of a session before the rest arrives. Without it, the whole transcript, as before.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { writeLongSession } from "../support/session-file.js";
import { startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

const MESSAGES = 120;

test("get_messages last: the newest messages and the total; without it, all of them", async () => {
	const agentDir = tempDir();
	const cwd = tempDir();
	writeLongSession(agentDir, cwd, "long", MESSAGES);
	const skiff = await startSkiff({ agentDir, cwd, args: ["--session", "long"] });
	await skiff.ready;
	const client = await TestClient.connect(skiff.wsUrl);
	try {
		const whole = await client.ok({ type: "get_messages" });
		assert.equal(whole.messages.length, MESSAGES);
		assert.equal(whole.total, MESSAGES);
		const newest = await client.ok({ type: "get_messages", last: 10 });
		assert.deepEqual(newest.messages, whole.messages.slice(-10));
		assert.equal(newest.total, MESSAGES);
		assert.equal(newest.seq, whole.seq);
		assert.equal((await client.ok({ type: "get_messages", last: MESSAGES + 5 })).messages.length, MESSAGES, "more than there are: all");
		const refused = await client.request({ type: "get_messages", last: 0 });
		assert.equal(refused.success, false, "last is at least 1");
	} finally {
		client.close();
		assert.equal(await skiff.stop(), 0, skiff.stderr());
	}
});
