/**
 * Two `compact` commands sent at once to one session: the first compacts, the second is refused with a
 * clear error (found by the stress fuzz: it used to fail inside pi with "Cannot read properties of
 * undefined (reading 'signal')").
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { startFakeOpenAi, writeFakeModelsJson } from "../support/fake-openai.js";
import { startSkiff, tempDir } from "../support/skiff-process.js";
import { TestClient } from "../support/ws-client.js";

test("a second compact while one runs is refused, and the first completes", async () => {
	const model = await startFakeOpenAi();
	const agentDir = tempDir();
	writeFakeModelsJson(agentDir, model.url);
	// A context window large enough that pi never compacts on its own while the history is built.
	const models = join(agentDir, "models.json");
	writeFileSync(models, readFileSync(models, "utf8").replaceAll('"contextWindow": 32000', '"contextWindow": 400000'));
	const skiff = await startSkiff({ agentDir, cwd: tempDir(), args: ["--model", "fake/fake-model"] });
	const client = await TestClient.connect(skiff.wsUrl);
	try {
		// More history than pi keeps uncompacted (20,000 tokens, counted as 4 characters each).
		for (let i = 0; i < 3; i++) {
			const from = client.events.length;
			await client.ok({ type: "prompt", message: `BENCH 1000 50\nquestion ${i}` });
			await client.waitForEvent((e) => e.type === "agent_end", 20_000, from);
		}
		const [first, second] = await Promise.all([client.request({ type: "compact" }, 20_000), client.request({ type: "compact" }, 20_000)]);
		assert.equal(first!.success, true, first!.error);
		assert.equal(second!.success, false);
		assert.match(second!.error!, /another compaction is in progress/);
		assert.equal(second!.code, "busy");
		const { messages } = await client.ok({ type: "get_messages" });
		assert.equal(messages[0].role, "compactionSummary");
	} finally {
		client.close();
		await skiff.stop();
		await model.close();
	}
});
