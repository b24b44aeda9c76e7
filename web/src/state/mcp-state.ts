/**
 * The MCP servers section's client state: the servers mcp_list gives (global, and the trusted projects' that
 * sessions started), each replaced as its `mcp_updated` arrives, so the states (starting, ready, restarting
 * after a crash...) move live. The list is service-wide, not per session: one load, then events alone.
 */
import type { McpServerView } from "../../../src/client/index.js";
import { failureText, type PanelContext, runCommand } from "./panel-context";

/** A server as the service names it: its name, and the project of a project's server. */
const keyOf = (server: Pick<McpServerView, "name" | "project">) => `${server.project ?? ""}\0${server.name}`;

export class McpState {
	servers: McpServerView[] | undefined;
	error: string | undefined;
	/** Servers (keyOf) with a restart or a switch under way. */
	readonly busy = new Set<string>();

	constructor(private readonly context: PanelContext) {
		context.client.on("mcp_updated", ({ server }) => {
			if (!this.servers) return;
			const at = this.servers.findIndex((s) => keyOf(s) === keyOf(server));
			this.servers = at < 0 ? [...this.servers, server] : this.servers.map((s, i) => (i === at ? server : s));
			context.changed();
		});
		// Events missed while away, or servers added or removed in the settings: read the list again.
		context.client.onResync(() => void this.load());
		context.client.on("settings_changed", () => void (this.servers && this.load()));
	}

	async load(): Promise<void> {
		try {
			this.servers = (await this.context.client.call("mcp_list", {}, { sessionId: this.context.sessionId() })).servers;
			this.error = undefined;
		} catch (error) {
			this.error = failureText(error);
		}
		this.context.changed();
	}

	restart(server: McpServerView): Promise<void> {
		return this.run(server, "Restarting", () => runCommand(this.context, `Restarting ${server.name}`, "mcp_restart", { name: server.name, project: server.project }, this.context.sessionId()));
	}

	setEnabled(server: McpServerView, enabled: boolean): Promise<void> {
		return this.run(server, enabled ? "Enabling" : "Disabling", () =>
			runCommand(this.context, `${enabled ? "Enabling" : "Disabling"} ${server.name}`, "mcp_set_enabled", { name: server.name, enabled, project: server.project }, this.context.sessionId()),
		);
	}

	/** Runs a command for one server; its answer (the server as it is now) replaces the row. */
	private async run(server: McpServerView, doing: string, command: () => Promise<{ data: { server: McpServerView } } | undefined>): Promise<void> {
		const key = keyOf(server);
		this.busy.add(key);
		this.context.changed(true);
		this.context.announce(`${doing} MCP server ${server.name}…`);
		const done = await command();
		this.busy.delete(key);
		if (done && this.servers) this.servers = this.servers.map((s) => (keyOf(s) === key ? done.data.server : s));
		if (done) this.context.announce(`MCP server ${server.name}: ${done.data.server.state}.`);
		this.context.changed();
	}

	isBusy(server: McpServerView): boolean {
		return this.busy.has(keyOf(server));
	}
}
