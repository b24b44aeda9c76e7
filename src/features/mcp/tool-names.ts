/**
 * The names MCP tools take among the agent's tools: `mcp__<server>__<tool>`, so that two servers' tools of the
 * same name never meet. Model providers take only letters, digits, `_` and `-`, at most 64 characters: any other
 * character becomes `_` and a name too long is cut and given a short hash, and the server is told which names
 * were changed. Job definitions name them in `tools` as `mcp` (every MCP tool), `mcp__<server>` (a server's) or
 * the full name.
 */
import { createHash } from "node:crypto";

export const MCP_PREFIX = "mcp__";
/** Longest tool name providers accept. */
export const MAX_TOOL_NAME = 64;

const UNSAFE = /[^A-Za-z0-9_-]/g;

/** The part of a name a server or tool gives, made safe (unsafe characters to `_`). */
export function safePart(text: string): string {
	return text.replace(UNSAFE, "_") || "_";
}

/** The agent's name of `tool` of `server`, unique among `taken` (names already given). */
export function agentToolName(server: string, tool: string, taken: ReadonlySet<string>): string {
	let name = `${MCP_PREFIX}${safePart(server)}__${safePart(tool)}`;
	if (name.length > MAX_TOOL_NAME || taken.has(name)) {
		const hash = createHash("sha256").update(`${server}\u0000${tool}`).digest("hex").slice(0, 8);
		name = `${name.slice(0, MAX_TOOL_NAME - 9)}_${hash}`;
	}
	return name;
}

/** Whether a job definition's `tools` entry names MCP tools (it is then not one of the core tools). */
export function isMcpToolPattern(entry: string): boolean {
	return entry === "mcp" || entry.startsWith(MCP_PREFIX);
}

/**
 * Whether a job allows the tool `name` of `server`: without a `tools` list every tool; with one, the tool when
 * the list names `mcp`, `mcp__<server>` or the tool itself.
 */
export function jobAllows(allowList: readonly string[] | undefined, server: string, name: string): boolean {
	if (allowList === undefined) return true;
	return allowList.some((entry) => entry === "mcp" || entry === `${MCP_PREFIX}${safePart(server)}` || entry === name);
}
