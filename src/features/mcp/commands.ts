/** Control-plane commands of MCP servers: the list with states and tools, and a restart; the doctor check. */
import { Type } from "typebox";
import type { LoadedSession } from "../../agent/runtime-manager.js";
import { defineCommand, NoFields } from "../../protocol/command.js";
import type { DoctorCheck } from "../../protocol/commands/doctor.js";
import type { ServiceKey } from "../../protocol/service-key.js";
import type { McpService } from "./mcp-service.js";
import { McpServerViewSchema } from "./schemas.js";

/** How long doctor waits for the addressed session's servers to start. */
export const DOCTOR_WAIT_MS = 20_000;

export function mcpCommands(key: ServiceKey<McpService>) {
	return [
		defineCommand({
			name: "mcp_list",
			summary:
				"The MCP servers: every global one (started or not), the trusted projects' that sessions started, and those of untrusted projects " +
				"that sessions opened (state skipped), with state, tools, warnings and last error; configurations with secrets masked.",
			params: NoFields,
			result: Type.Object({ servers: Type.Array(McpServerViewSchema) }),
			handler: async (_params, context) => ({ servers: context.service(key).list() }),
		}),
		defineCommand({
			name: "mcp_restart",
			summary: "Stops an MCP server (its whole process group) and starts it again; answers once it is ready or failed. Emits `mcp_updated`.",
			params: Type.Object(
				{
					name: Type.String({ minLength: 1, maxLength: 128, description: "The server's name in the settings." }),
					project: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: "The project folder of a project's server." })),
				},
				{ additionalProperties: false },
			),
			result: Type.Object({ server: McpServerViewSchema }),
			handler: async ({ name, project }, context) => ({ server: await context.service(key).restart(name, project) }),
		}),
		defineCommand({
			name: "mcp_set_enabled",
			summary:
				"Enables or disables an MCP server in the settings file that configures it (the global one, or a trusted project's), " +
				"applied like settings_apply: a disabled server stops, an enabled one starts when a session needs it. Emits `mcp_updated`.",
			params: Type.Object(
				{
					name: Type.String({ minLength: 1, maxLength: 128, description: "The server's name in the settings." }),
					enabled: Type.Boolean(),
					project: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: "The project folder of a project's server." })),
				},
				{ additionalProperties: false },
			),
			result: Type.Object({ server: McpServerViewSchema }),
			handler: async ({ name, enabled, project }, context) => ({ server: await context.service(key).setEnabled(name, enabled, context.runtime, project) }),
		}),
	];
}

/** doctor: each server of the session's folder starts and lists its tools (within DOCTOR_WAIT_MS). */
export function mcpDoctorCheck(mcp: McpService): (session: LoadedSession) => Promise<DoctorCheck | undefined> {
	return async (session) => {
		const runtimes = await mcp.settle(session.handle.cwd, DOCTOR_WAIT_MS);
		const enabled = runtimes.filter((r) => r.state !== "disabled");
		// Nothing configured (or everything switched off) is nothing to check: the doctor lists no line for it.
		if (enabled.length === 0) return undefined;
		const bad = enabled.filter((r) => r.state !== "ready");
		const detail = enabled
			.map((r) => `${r.spec.name}: ${r.state}${r.state === "ready" ? ` (${r.tools.length} tools)` : r.lastError ? ` (${r.lastError})` : ""}`)
			.join("; ");
		return {
			id: "mcp",
			ok: bad.length === 0,
			title: "MCP servers",
			detail,
			...(bad.length === 0 ? {} : { fix: "See lastError in mcp_list, fix the server's entry under mcpServers in the settings, then mcp_restart it." }),
		};
	};
}
