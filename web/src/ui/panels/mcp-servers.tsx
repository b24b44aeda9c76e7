/**
 * Settings' "MCP servers" section: each configured server with its state, transport, tools and last error,
 * a switch (mcp_set_enabled, written to the file that configures it) and Restart (mcp_restart), kept live by
 * mcp_updated. An untrusted project's servers are listed as skipped, with how to trust it. Everything a server
 * said goes through the page's redaction.
 */
import { useEffect } from "preact/hooks";
import type { McpServerView } from "../../../../src/client/index.js";
import { redact } from "../../render/redact";
import type { Controller } from "../../state/controller";
import { EmptyState, PanelSection } from "./panel-layout";

/** The service's restart rule (src/features/mcp/server.ts): 1 s, doubled per crash in a row, at most 30 s; 5 crashes. */
const MAX_RESTARTS = 5;
const backoff = (crashes: number) => Math.min(30, 2 ** (crashes - 1));

export function McpServers({ controller }: { controller: Controller }) {
	const mcp = controller.mcp;
	const { ready } = controller.state;
	useEffect(() => {
		if (ready) void mcp.load();
	}, [ready, mcp]);
	const servers = mcp.servers;
	return (
		<PanelSection title="MCP servers">
			{mcp.error && <p class="error-text">{redact(mcp.error)}</p>}
			{!servers ? (
				!mcp.error && <p class="hint">Reading the servers…</p>
			) : servers.length === 0 ? (
				<EmptyState title="No MCP server configured">
					<span>
						Add one in <code>mcpServers</code> (Saved settings, Mcp), e.g. <code>{'{"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me"]}}'}</code>;
						docs/mcp.md says more. Its tools reach the agent as <code>mcp__server__tool</code>.
					</span>
				</EmptyState>
			) : (
				<ul class="mcp-servers">
					{servers.map((server) => (
						<Server key={`${server.project ?? ""}/${server.name}`} server={server} busy={mcp.isBusy(server)} ready={ready} controller={controller} />
					))}
				</ul>
			)}
		</PanelSection>
	);
}

function Server({ server, busy, ready, controller }: { server: McpServerView; busy: boolean; ready: boolean; controller: Controller }) {
	const { name, state, tools } = server;
	const id = `mcp-${name.replace(/[^A-Za-z0-9]/g, "-")}${server.project ? "-p" : ""}`;
	const skipped = state === "skipped";
	const stateText =
		state === "restarting" ? `restarting: crash ${server.restarts} of at most ${MAX_RESTARTS}, after ${backoff(server.restarts)} s` : state === "stopped" ? "not started yet" : state;
	const facts = [server.transport, server.serverInfo, server.scope === "project" ? `project ${server.project}` : "global", server.pid && `pid ${server.pid}`].filter(Boolean);
	return (
		<li class="mcp-server" data-server={name} data-state={state} aria-labelledby={`${id}-name`} aria-busy={busy}>
			<div class="setting-head">
				<span class="setting-key" id={`${id}-name`}>
					{name}
				</span>
				<span class="tag mcp-state">{stateText}</span>
				{!skipped && (
					<input
						class="switch"
						type="checkbox"
						role="switch"
						checked={server.enabled}
						disabled={!ready || busy}
						aria-label={`${name} enabled`}
						onChange={(e) => void controller.mcp.setEnabled(server, (e.target as HTMLInputElement).checked)}
					/>
				)}
			</div>
			<p class="setting-meta">{facts.join(" · ")}</p>
			{skipped ? (
				<p class="hint">Not started: the project is not trusted. Trust it under Saved settings, This project.</p>
			) : (
				server.lastError && state !== "ready" && <p class="error-text">{redact(server.lastError)}</p>
			)}
			{server.warnings.length > 0 && (
				<details>
					<summary class="hint">{server.warnings.length === 1 ? "1 warning" : `${server.warnings.length} warnings`}</summary>
					<ul class="mcp-list">
						{server.warnings.map((warning, i) => (
							<li key={i}>{redact(warning)}</li>
						))}
					</ul>
				</details>
			)}
			{tools.length > 0 && (
				<details>
					<summary class="hint">{tools.length === 1 ? "1 tool" : `${tools.length} tools`}</summary>
					<ul class="mcp-list">
						{tools.map((tool) => (
							<li key={tool.name} title={tool.name}>
								<code>{tool.serverName}</code> {redact(tool.description)}
							</li>
						))}
					</ul>
				</details>
			)}
			{!skipped && (
				<div>
					<button type="button" class="small" disabled={!ready || busy || !server.enabled} onClick={() => void controller.mcp.restart(server)} aria-label={`Restart ${name}`}>
						{busy ? "Working…" : "Restart"}
					</button>
				</div>
			)}
		</li>
	);
}
