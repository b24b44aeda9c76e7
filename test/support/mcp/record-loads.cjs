/**
 * Preloaded into skiff (NODE_OPTIONS=--require) by the start-up test: appends to $MCP_LOADS_FILE each module of
 * the MCP SDK that is required, so the test can tell whether skiff loaded the SDK at all.
 */
const Module = require("node:module");
const { appendFileSync } = require("node:fs");
const load = Module._load;
Module._load = function (request, ...rest) {
	if (String(request).includes("@modelcontextprotocol")) appendFileSync(process.env.MCP_LOADS_FILE, `${request}\n`);
	return load.call(this, request, ...rest);
};
