import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { contractOutputs } from "../../../scripts/contract-outputs.js";
import { createSchemaRegistry } from "../../../src/contract.js";

test("the contract's generated files match the schemas (run `npm run docs:protocol` after changing one)", () => {
	for (const { file, content } of contractOutputs()) {
		assert.equal(readFileSync(file, "utf8"), content, `${fileURLToPath(file)} is out of date`);
	}
});

test("the pi command names are all registered", () => {
	const commands = createSchemaRegistry();
	for (const name of [
		"prompt", "steer", "follow_up", "abort", "get_state", "get_messages", "get_available_models", "set_model",
		"get_available_thinking_levels", "set_thinking_level", "get_commands", "session_list", "new_session",
		"switch_session", "fork", "clone", "close_session", "set_session_name", "get_session_stats", "compact",
		"extension_ui_response",
	]) {
		assert.ok(commands.get(name), name);
	}
});
