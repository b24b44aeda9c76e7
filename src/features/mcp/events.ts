/** The MCP event: sent to every loaded session's followers when a server's state, tools or warnings change. */
import { defineEvent } from "../../protocol/event.js";
import { McpServerViewSchema } from "./schemas.js";

export const mcpUpdatedEvent = defineEvent("mcp_updated", "An MCP server's state, tools or warnings changed (as mcp_list shows it).", {
	server: McpServerViewSchema,
});

export const mcpEvents = [mcpUpdatedEvent];
