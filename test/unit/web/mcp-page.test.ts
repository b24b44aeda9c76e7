/**
 * The page's MCP helpers: what the JSON editor of an object setting (mcpServers) takes, and the server and own
 * name a tool card shows for an MCP tool. Bad input is said, never thrown.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { readObject } from "../../../web/src/state/setting-json.js";
import { mcpToolOf } from "../../../web/src/state/transcript.js";

test("the JSON editor takes an object and says what is wrong with anything else", () => {
	assert.deepEqual(readObject('{"db": {"command": "db-mcp"}}', "mcpServers"), { value: { db: { command: "db-mcp" } } });
	assert.deepEqual(readObject("{}", "mcpServers"), { value: {} });
	for (const [text, problem] of [
		["{ not json", /^`mcpServers` is not valid JSON: /],
		['{"a": 1,}', /is not valid JSON/],
		["", /is not valid JSON/],
		["[1, 2]", /must be a JSON object/],
		["null", /must be a JSON object/],
		['"text"', /must be a JSON object/],
		["42", /must be a JSON object/],
		['{"db": {"env": {"API_KEY": "[REDACTED]"}}}', /holds \[REDACTED\], a masked secret: write a \$VAR reference/],
	] as const) {
		const read = readObject(text, "mcpServers");
		assert.ok("problem" in read, text);
		assert.match(read.problem, problem, text);
	}
});

test("a tool card finds an MCP tool's server and own name in its details, else in its name", () => {
	assert.deepEqual(mcpToolOf("mcp__db__query", { mcpServer: "db", mcpTool: "query" }), ["db", "query"]);
	// The details are exact where the name was made safe or cut (dots, a hash).
	assert.deepEqual(mcpToolOf("mcp__test__dotted_name_x", { mcpServer: "test", mcpTool: "dotted.name/x" }), ["test", "dotted.name/x"]);
	assert.deepEqual(mcpToolOf("mcp__db__query", undefined), ["db", "query"], "while it runs: from the name");
	assert.deepEqual(mcpToolOf("mcp__my__db__list_tables", {}), ["my", "db__list_tables"]);
	assert.deepEqual(mcpToolOf("mcp__db__query", { mcpServer: 3, mcpTool: null }), ["db", "query"], "details of the wrong type are not trusted");
	for (const name of ["bash", "read", "mcp__", "mcp__db", "mcp____x", "task", ""]) assert.equal(mcpToolOf(name, { exitCode: 0 }), undefined, name);
});
