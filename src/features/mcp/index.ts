/**
 * MCP servers as the agent's tools: configured under `mcpServers` in the settings, started when a session that
 * may use them opens, shared by the service's sessions, stopped at shutdown (docs/mcp.md). The SDK is loaded on
 * first use only.
 */
import { serviceKey } from "../../protocol/service-key.js";
import { defineSetting } from "../../settings/definition.js";
import { defineFeature } from "../module.js";
import { mcpCommands, mcpDoctorCheck } from "./commands.js";
import { configWarnings, McpServersSchema, redactServers } from "./config.js";
import { mcpEvents, mcpUpdatedEvent } from "./events.js";
import { McpService, SETTING_KEY } from "./mcp-service.js";

const key = serviceKey<McpService>("mcp");

/** Skiff's version as MCP servers see it (the client's name is "skiff"). */
const CLIENT_VERSION = "1";

export const mcpFeature = defineFeature({
	key,
	settings: [
		defineSetting({ key: SETTING_KEY, category: "mcp", schema: McpServersSchema, scopes: ["global", "project"], applies: "live", redact: redactServers }),
	],
	events: mcpEvents,
	// Start-up tells of global servers that cannot start as configured (an unset $VAR, plaintext): never a refusal.
	checkSettings: (agentDir) => configWarnings(agentDir),
	commands: mcpCommands(key),
	start: (host) => {
		const mcp = new McpService({
			settings: host.settings,
			cwd: host.runtime.cwd,
			log: (line) => host.log(line),
			version: CLIENT_VERSION,
			changed: (server) => {
				for (const session of host.runtime.loadedSessions()) host.publish(session.id, { type: mcpUpdatedEvent.type, server });
			},
		});
		host.settings.addConsumer({ apply: (change) => (change.keys.includes(SETTING_KEY) ? mcp.reload() : undefined) });
		return mcp;
	},
	sessions: { serves: ["top-level", "job"], contribute: (mcp, origin) => ({ features: mcp.forSession(origin) }) },
	stop: (mcp) => mcp.stop(),
	doctor: mcpDoctorCheck,
});

export { isMcpToolPattern } from "./tool-names.js";
