/**
 * The test MCP server over Streamable HTTP, on loopback, written with the official SDK (stateless: a server and
 * transport per request). Routes: `/mcp` serves the tools of test/support/mcp/tools.mjs; `/auth` does too, only
 * with `Authorization: Bearer <token>` (else 401); `/redirect` answers 307 to `/mcp` on another origin
 * (`localhost` instead of `127.0.0.1`), so a test can see that nothing follows it there. Every request's path,
 * host and authorization header is recorded.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
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
	let port = 0;
	const server: Server = createServer(async (req: IncomingMessage, res) => {
		const path = (req.url ?? "/").split("?")[0]!;
		seen.push({ path, host: req.headers.host ?? "", ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
		if (path === "/redirect") {
			res.writeHead(307, { location: `http://localhost:${port}/mcp` }).end();
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
