/**
 * One connection to an MCP server through the official SDK: the transport (a child process in its own group, or
 * Streamable HTTP with the SDK's SSE transport as fallback for older servers), the `initialize` handshake under
 * a deadline, the tool list (every page, bounded) and tool calls. This module and the SDK are loaded on first
 * use only (server.ts imports it dynamically): a service with no MCP server configured never loads either.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolResultSchema, ErrorCode, McpError, ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { boundedFetch } from "./bounded-fetch.js";
import type { Launch } from "./config.js";
import { ProcessGroupTransport } from "./stdio-transport.js";

/** Most tools read from one server (over pages). */
export const MAX_TOOLS_PER_SERVER = 256;
/** Most pages of a tool list read (a server that hands out cursors forever). */
const MAX_LIST_PAGES = 32;

/** A tool as the server lists it (the parts Skiff uses). */
export interface ListedTool {
	name: string;
	description?: string;
	inputSchema: unknown;
}

/** A tool call's result as the server sent it (content parts; `isError` when the tool failed). */
export interface CallResult {
	content: Array<Record<string, unknown>>;
	structuredContent?: unknown;
	isError?: boolean;
}

export interface McpConnection {
	/** `stdio` or `streamable-http` or `sse`. */
	readonly transport: string;
	/** The server's name and version as it gave them. */
	readonly serverInfo: string | undefined;
	/** The child's pid (stdio). */
	readonly pid: number | undefined;
	listTools(timeoutMs: number): Promise<{ tools: ListedTool[]; more: boolean }>;
	callTool(name: string, args: Record<string, unknown>, options: { timeoutMs: number; signal?: AbortSignal }): Promise<CallResult>;
	close(): Promise<void>;
}

export interface ConnectOptions {
	/** Deadline of connecting and `initialize`. */
	timeoutMs: number;
	/** Skiff's version, sent as the client's. */
	version: string;
	/** The connection ended without close(): the process exited, the stream broke. */
	onClosed(why: string): void;
	/** The server said its tool list changed. */
	onToolsChanged(): void;
	/** Something wrong with the server's output, worth telling the operator. */
	warn(line: string): void;
	/** Aborted when the server is stopped while it starts: the connection (and a stdio server's group) ends. */
	signal: AbortSignal;
}

/** Connects and initializes; throws an Error whose message says what went wrong (not yet masked). */
export async function connect(launch: Launch, options: ConnectOptions): Promise<McpConnection> {
	if (launch.kind === "stdio") {
		const transport = new ProcessGroupTransport(launch, { warn: options.warn });
		const why = () => {
			const stderr = transport.stderr.trim();
			const last = stderr === "" ? "" : `; its last output on standard error: ${stderr.slice(-500)}`;
			return `${transport.exit ?? "closed its connection"}${last}`;
		};
		return open(transport, "stdio", options, why, () => transport.pid);
	}
	const init: RequestInit = { headers: launch.headers };
	if (!launch.sseOnly) {
		const streamable = new StreamableHTTPClientTransport(launch.url, { requestInit: init, fetch: boundedFetch() });
		try {
			return await open(streamable, "streamable-http", options, () => "the HTTP connection closed");
		} catch (error) {
			// Servers of the older HTTP+SSE protocol answer the first POST with 404 or 405: try that one instead.
			const code = (error as { code?: unknown }).code;
			if (code !== 404 && code !== 405) throw error;
		}
	}
	const sse = new SSEClientTransport(launch.url, { requestInit: init, eventSourceInit: { fetch: (url, i) => fetch(url, { ...i, headers: { ...launch.headers, ...(i?.headers as Record<string, string>) } }) }, fetch: boundedFetch() });
	return open(sse, "sse", options, () => "the SSE connection closed");
}

async function open(transport: Transport, kind: string, options: ConnectOptions, why: () => string, pid: () => number | undefined = () => undefined): Promise<McpConnection> {
	let closing = false;
	const client = new Client(
		{ name: "skiff", version: options.version },
		{ listChanged: { tools: { autoRefresh: false, debounceMs: 100, onChanged: () => options.onToolsChanged() } } },
	);
	client.onclose = () => {
		if (!closing) options.onClosed(why());
	};
	client.onerror = () => undefined; // each failing request reports its own error; the transport's exit says the rest
	const abandon = () => {
		closing = true;
		void client.close().catch(() => undefined);
	};
	options.signal.addEventListener("abort", abandon, { once: true });
	try {
		await client.connect(transport, { timeout: options.timeoutMs });
	} catch (error) {
		closing = true;
		await client.close().catch(() => undefined);
		options.signal.removeEventListener("abort", abandon);
		// The HTTP status stays on the error: connect() falls back to SSE on 404 and 405.
		throw Object.assign(new Error(describe(error, `answer initialize`, options.timeoutMs, why)), { code: (error as { code?: unknown }).code });
	}
	options.signal.removeEventListener("abort", abandon);
	const version = client.getServerVersion();
	return {
		transport: kind,
		serverInfo: version ? `${version.name} ${version.version}` : undefined,
		get pid() {
			return pid();
		},
		async listTools(timeoutMs) {
			const tools: ListedTool[] = [];
			let cursor: string | undefined;
			for (let page = 0; page < MAX_LIST_PAGES; page++) {
				let result: Record<string, unknown>;
				try {
					// Read loosely (not with the SDK's listTools): one tool with a schema the SDK rejects would fail the
					// whole list; each tool is checked on its own instead (server.ts), and a bad one left out.
					result = await client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }, ResultSchema, { timeout: timeoutMs });
				} catch (error) {
					throw new Error(describe(error, "list its tools", timeoutMs, why));
				}
				if (!Array.isArray(result.tools)) throw new Error("answered tools/list without a list of tools");
				for (const tool of result.tools as unknown[]) {
					if (typeof tool === "object" && tool !== null && typeof (tool as ListedTool).name === "string") tools.push(tool as ListedTool);
				}
				cursor = typeof result.nextCursor === "string" ? result.nextCursor : undefined;
				if (cursor === undefined || tools.length >= MAX_TOOLS_PER_SERVER) break;
			}
			return { tools: tools.slice(0, MAX_TOOLS_PER_SERVER), more: tools.length > MAX_TOOLS_PER_SERVER || cursor !== undefined };
		},
		async callTool(name, args, { timeoutMs, signal }) {
			try {
				const result = await client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: timeoutMs, signal });
				return result as CallResult;
			} catch (error) {
				if (signal?.aborted) throw new Error("the call was aborted (the server was told to cancel it)");
				throw new Error(describe(error, `finish ${name}`, timeoutMs, why));
			}
		},
		async close() {
			closing = true;
			await client.close().catch(() => undefined);
		},
	};
}

/** An SDK error in a sentence: timeouts with their deadline, HTTP refusals with what to check. */
function describe(error: unknown, doing: string, timeoutMs: number, why: () => string): string {
	if (error instanceof McpError) {
		if (error.code === ErrorCode.RequestTimeout) return `did not ${doing} within ${timeoutMs} ms (the request was cancelled)`;
		if (error.code === ErrorCode.ConnectionClosed) return stoppedBefore(doing, why());
		return error.message.replace(/^MCP error -?\d+: /, "");
	}
	const code = (error as { code?: unknown }).code;
	const message = error instanceof Error ? error.message : String(error);
	if (code === 401 || /\b401\b|Unauthorized/.test(message)) return `refused the credentials (HTTP 401 Unauthorized): check its headers (${message.slice(0, 200)})`;
	if (code === 403) return `refused access (HTTP 403 Forbidden): ${message.slice(0, 200)}`;
	if (/fetch failed|ECONNREFUSED/.test(message)) {
		const cause = (error as { cause?: { code?: string } }).cause?.code;
		return `could not be reached${cause ? ` (${cause})` : ""}: ${message.slice(0, 200)}`;
	}
	if (/Connection closed|not running/.test(message)) return stoppedBefore(doing, why());
	return message.slice(0, 500);
}

function stoppedBefore(doing: string, why: string): string {
	return why.startsWith("could not start") ? why : `stopped before it could ${doing}: ${why}`;
}
