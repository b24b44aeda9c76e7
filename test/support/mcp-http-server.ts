/**
 * The test MCP server over Streamable HTTP, on loopback, written with the official SDK (stateless: a server and
 * transport per request). Routes: `/mcp` serves the tools of test/support/mcp/tools.mjs; `/auth` does too, only
 * with `Authorization: Bearer <token>` (else 401); `/redirect` answers 307 to `/mcp` on another origin
 * (`localhost` instead of `127.0.0.1`), so a test can see that nothing follows it there; `/legacy` is a server of
 * the older HTTP+SSE protocol (a POST there is refused with 405, as such servers do; GET opens the event stream,
 * whose messages are POSTed to `/messages`). Every request's path,
 * host and authorization header is recorded.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
// @ts-expect-error: plain JavaScript shared with the stdio server, which skiff starts without a loader
import { createTestServer } from "./mcp/tools.mjs";

export interface SeenRequest {
	path: string;
	host: string;
	authorization?: string;
}

export interface McpHttpServer {
	url(path: string): string;
	port: number;
	seen: SeenRequest[];
	close(): Promise<void>;
}

export async function startMcpHttpServer(token: string): Promise<McpHttpServer> {
	const seen: SeenRequest[] = [];
	const legacy = new Map<string, SSEServerTransport>();
	let port = 0;
	const server: Server = createServer(async (req: IncomingMessage, res) => {
		const path = (req.url ?? "/").split("?")[0]!;
		seen.push({ path, host: req.headers.host ?? "", ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
		if (path === "/redirect") {
			res.writeHead(307, { location: `http://localhost:${port}/mcp` }).end();
			return;
		}
		if (path === "/legacy" && req.method === "GET") {
			const transport = new SSEServerTransport("/messages", res);
			legacy.set(transport.sessionId, transport);
			res.on("close", () => legacy.delete(transport.sessionId));
			await createTestServer("skiff-test-sse-server").connect(transport);
			return;
		}
		if (path === "/legacy") {
			res.writeHead(405, { allow: "GET" }).end();
			return;
		}
		if (path === "/messages") {
			const transport = legacy.get(new URL(req.url ?? "/", "http://x").searchParams.get("sessionId") ?? "");
			if (!transport) res.writeHead(404).end();
			else await transport.handlePostMessage(req, res);
			return;
		}
		if (path === "/auth" && req.headers.authorization !== `Bearer ${token}`) {
			res.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "invalid token" }));
			return;
		}
		if (path !== "/mcp" && path !== "/auth") {
			res.writeHead(404).end();
			return;
		}
		const mcp = createTestServer("skiff-test-http-server");
		const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
		res.on("close", () => {
			void transport.close();
			void mcp.close();
		});
		await mcp.connect(transport);
		await transport.handleRequest(req, res);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	port = (server.address() as AddressInfo).port;
	return {
		url: (path) => `http://127.0.0.1:${port}${path}`,
		port,
		seen,
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
