/** MCP tools as agent tools: safe, namespaced names; schemas pi can take; results mapped and bounded; job allow-lists. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_TOOL_OUTPUT_BYTES } from "../../../../src/agent/feature-tool.js";
import { agentToolName, isMcpToolPattern, jobAllows } from "../../../../src/features/mcp/tool-names.js";
import { McpToolError, toToolOutput } from "../../../../src/features/mcp/tool-result.js";
import { toolParameters } from "../../../../src/features/mcp/tool-schema.js";

test("tool names are mcp__<server>__<tool>, unsafe characters mapped, long or clashing names given a hash", () => {
	assert.equal(agentToolName("db", "query", new Set()), "mcp__db__query");
	assert.equal(agentToolName("my.db", "run sql/now", new Set()), "mcp__my_db__run_sql_now");
	const long = agentToolName("server", "t".repeat(100), new Set());
	assert.equal(long.length, 64);
	assert.match(long, /^mcp__server__t+_[0-9a-f]{8}$/);
	const clash = agentToolName("s", "a.b", new Set(["mcp__s__a_b"]));
	assert.match(clash, /^mcp__s__a_b_[0-9a-f]{8}$/);
});

test("a job's tools list allows MCP tools by `mcp`, by server or by name; no list allows all", () => {
	assert.equal(isMcpToolPattern("mcp"), true);
	assert.equal(isMcpToolPattern("mcp__db"), true);
	assert.equal(isMcpToolPattern("read"), false);
	assert.equal(jobAllows(undefined, "db", "mcp__db__q"), true);
	assert.equal(jobAllows(["read"], "db", "mcp__db__q"), false);
	assert.equal(jobAllows(["read", "mcp"], "db", "mcp__db__q"), true);
	assert.equal(jobAllows(["mcp__db"], "db", "mcp__db__q"), true);
	assert.equal(jobAllows(["mcp__web"], "db", "mcp__db__q"), false);
	assert.equal(jobAllows(["mcp__db__q"], "db", "mcp__db__q"), true);
});

test("a schema pi cannot take is refused with the reason", () => {
	assert.ok("parameters" in toolParameters({ type: "object", properties: { a: { type: "string" } } }));
	assert.deepEqual(toolParameters({ type: "string" }), { problem: 'its input schema has type "string", not "object"' });
	assert.deepEqual(toolParameters(null), { problem: "its input schema is not an object" });
	const huge = { type: "object", properties: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`p${i}`, { type: "string" }])) };
	assert.match((toolParameters(huge) as { problem: string }).problem, /over 65536/);
});

test("results: text and images pass, other parts are named, text is cut to the tool-output cap, errors carry the server's message", () => {
	const out = toToolOutput(
		{
			content: [
				{ type: "text", text: "x".repeat(MAX_TOOL_OUTPUT_BYTES * 2) },
				{ type: "image", data: "AAAA", mimeType: "image/png" },
				{ type: "audio", data: "AAAA", mimeType: "audio/wav" },
			],
		},
		{ mcpServer: "s" },
	);
	assert.deepEqual(
		out.content.map((c) => c.type),
		["text", "image"],
	);
	const text = (out.content[0] as { text: string }).text;
	assert.ok(Buffer.byteLength(text) <= MAX_TOOL_OUTPUT_BYTES);
	assert.match(text, /output truncated/);
	assert.deepEqual(out.details, { mcpServer: "s" });
	assert.deepEqual(toToolOutput({ content: [], structuredContent: { n: 1 } }, {}).content, [{ type: "text", text: '{"n":1}' }]);
	assert.throws(() => toToolOutput({ content: [{ type: "text", text: "no such row" }], isError: true }, {}), (e: Error) => e instanceof McpToolError && e.message === "no such row");
});
