/** The wire shapes of MCP servers (mcp_list, mcp_restart, mcp_updated). */
import { Type } from "typebox";
import { SERVER_STATES } from "./server.js";

export const McpToolViewSchema = Type.Object(
	{
		name: Type.String({ description: "The agent's name of the tool: mcp__<server>__<tool> (made safe)." }),
		serverName: Type.String({ description: "The server's own name of it." }),
		description: Type.String(),
	},
	{ title: "McpToolView" },
);

export const McpServerViewSchema = Type.Object(
	{
		name: Type.String({ description: "The server's name in the settings." }),
		scope: Type.Union([Type.Literal("global"), Type.Literal("project")], { description: "Configured in the global settings or a project's (trusted, else skipped)." }),
		project: Type.Optional(Type.String({ description: "The project folder of a project's server." })),
		state: Type.Enum([...SERVER_STATES, "skipped"] as const, {
			description:
				"stopped (not needed yet), starting, ready, failed (see lastError), restarting (after a crash, with backoff), disabled, skipped (a project's that does not start: the project is not trusted).",
		}),
		enabled: Type.Boolean(),
		transport: Type.Optional(Type.String({ description: "stdio, streamable-http or sse, once connected." })),
		serverInfo: Type.Optional(Type.String({ description: "The name and version the server gave." })),
		pid: Type.Optional(Type.Integer({ description: "A running stdio server's process (and process group) id." })),
		tools: Type.Array(McpToolViewSchema, { description: "The tools it offers the agent now (empty unless ready)." }),
		warnings: Type.Array(Type.String(), { description: "What was wrong with its output or tools (newest last, secrets masked)." }),
		lastError: Type.Optional(Type.String({ description: "Why it failed or stopped last (secrets masked)." })),
		restarts: Type.Integer({ description: "Crashes in a row that restarted it." }),
		config: Type.Record(Type.String(), Type.Unknown(), { description: "Its configuration as written, secrets masked." }),
	},
	{ title: "McpServerView" },
);
