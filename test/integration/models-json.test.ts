/**
 * models.json is checked against pi's schema as the service starts (the bundle checks it without compiling the
 * schema: scripts/bundle.mjs, SOURCE_EDITS): a file that breaks it is reported, path by path, and the service
 * still starts, with the models it has.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runSkiff, tempDir } from "../support/skiff-process.js";

test("a models.json that breaks the schema is reported field by field, and the service still starts", async () => {
	const agentDir = tempDir();
	const file = join(agentDir, "models.json");
	const model = { id: 7, contextWindow: "big" };
	writeFileSync(file, JSON.stringify({ providers: { local: { baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", apiKey: "k", models: [model] } } }));
	const run = await runSkiff(["--mode", "rpc"], { SKIFF_AGENT_DIR: agentDir });
	assert.equal(run.code, 0, run.stderr);
	assert.ok(
		run.stderr.includes(
			"warning: models.json: Invalid models.json schema:\n" +
				"  - providers.local.models.0.id: must be string\n" +
				"  - providers.local.models.0.contextWindow: must be number\n\n" +
				`File: ${file}\n`,
		),
		run.stderr,
	);
	assert.match(run.stderr, /No model has credentials yet/, "the file's models are not used");
});

test("a models.json without its providers, or not an object, is reported too", async () => {
	for (const [content, problem] of [
		[{ models: [] }, "  - providers: must have required properties providers"],
		[[1, 2], "  - root: must be object"],
	] as const) {
		const agentDir = tempDir();
		writeFileSync(join(agentDir, "models.json"), JSON.stringify(content));
		const run = await runSkiff(["--mode", "rpc"], { SKIFF_AGENT_DIR: agentDir });
		assert.equal(run.code, 0, run.stderr);
		assert.ok(run.stderr.includes(`warning: models.json: Invalid models.json schema:\n${problem}\n`), run.stderr);
	}
});
