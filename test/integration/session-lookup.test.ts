/**
 * Session lookups in a real process: a session file another program writes after skiff started is found by
 * id, by prefix and by an envelope's sessionId; unknown ids, sent many at once, get the errors they always got.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { writeLongSession } from "../support/session-file.js";
import { tempDir } from "../support/skiff-process.js";
import { useSkiffStarter } from "../support/skiff-starter.js";

const service = useSkiffStarter();

test("a session written by another program after start is found; unknown ids, many at once, are refused as before", async () => {
	const agentDir = service.newAgentDir();
	const cwd = tempDir();
	writeLongSession(agentDir, cwd, "before-start", 2);
	const { client } = await service.start({ agentDir, cwd });
	assert.equal((await client.ok({ type: "switch_session", sessionPath: "before-start" })).sessionId, "before-start");

	const unknown = await Promise.all([
		...Array.from({ length: 8 }, (_, i) => client.request({ type: "get_state", sessionId: `missing-${i}` })),
		...Array.from({ length: 8 }, (_, i) => client.request({ type: "switch_session", sessionPath: `missing-${i}` })),
	]);
	unknown.slice(0, 8).forEach((r, i) => assert.match(r.error ?? "", new RegExp(`^Unknown session: missing-${i}$`)));
	unknown.slice(8).forEach((r, i) => assert.match(r.error ?? "", new RegExp(`^No recorded session matches "missing-${i}"$`)));

	// This test's process is the other program: it writes two sessions while skiff runs.
	writeLongSession(agentDir, cwd, "written-later", 4);
	writeLongSession(agentDir, cwd, "another-written-later", 2);
	const messages = await client.ok({ type: "get_messages", sessionId: "written-later" });
	assert.equal(messages.messages.length, 4, "found by an envelope's sessionId");
	assert.equal((await client.ok({ type: "switch_session", sessionPath: "another-w" })).sessionId, "another-written-later", "and by prefix");
	client.close();
});
