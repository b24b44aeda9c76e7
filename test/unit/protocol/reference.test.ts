import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { createCommandRegistry } from "../../../src/command-registry.js";
import { MemoryService } from "../../../src/memory/memory-service.js";
import { DEFAULT_MEMORY_SETTINGS } from "../../../src/memory/settings.js";

const registry = () => createCommandRegistry({ memory: new MemoryService("", DEFAULT_MEMORY_SETTINGS) });
import { renderCommandReference, spliceReference } from "../../../src/protocol/reference.js";

test("docs/protocol.md documents exactly the registered commands (run `npm run docs:protocol` after changing a schema)", () => {
	const document = readFileSync(new URL("../../../docs/protocol.md", import.meta.url), "utf8");
	const expected = spliceReference(document, renderCommandReference(registry().list()));
	assert.equal(document, expected);
});

test("the pi command names the issue requires are all registered", () => {
	const commands = registry();
	for (const name of [
		"prompt", "steer", "follow_up", "abort", "get_state", "get_messages", "get_available_models", "set_model",
		"get_available_thinking_levels", "set_thinking_level", "get_commands", "session_list", "new_session",
		"switch_session", "fork", "clone", "close_session", "set_session_name", "get_session_stats", "compact",
		"extension_ui_response",
	]) {
		assert.ok(commands.get(name), name);
	}
});
