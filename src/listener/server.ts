/**
 * The control-plane listener: node:http with routes /web, /ws (WebSocket) and /rpc, authentication and
 * origin checks before anything else runs, and a clean shutdown. It knows the protocol's dispatcher, not pi.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";
import type { Dispatcher } from "../protocol/dispatch.js";
import { type AuthPolicy, authorizeRequest } from "./auth.js";
import { refuseUpgrade, sendText } from "./http-reply.js";
import {
	CLOSE_GRACE_MS,
	HEADERS_TIMEOUT_MS,
	MAX_CONNECTIONS,
	MAX_FRAME_BYTES,
	MAX_HEADER_BYTES,
	REQUEST_TIMEOUT_MS,
} from "./limits.js";
import { serveRpc } from "./rpc-route.js";
import { serveWebPage, type WebPageSource } from "./web-route.js";
import { CLOSE_GOING_AWAY, serveControlSocket } from "./websocket.js";

export interface ListenerOptions {
	host: string;
	port: number;
	auth: AuthPolicy;
	dispatcher: Dispatcher;
	web: WebPageSource;
}

export interface Listener {
	/** The bound address (the real port when 0 was asked). */
	readonly address: AddressInfo;
	/** Stops accepting, closes every socket (1001), and resolves when the server is closed. */
	close(): Promise<void>;
}

/** The subprotocol chosen by authorization, remembered between the check and the upgrade. */
const chosenProtocol = new WeakMap<IncomingMessage, string>();

export async function startListener(options: ListenerOptions): Promise<Listener> {
	const { auth, dispatcher, web } = options;
	const sockets = new WebSocketServer({
		noServer: true,
		maxPayload: MAX_FRAME_BYTES,
		perMessageDeflate: false,
		handleProtocols: (_offered, request) => chosenProtocol.get(request) ?? false,
	});
	sockets.on("connection", (socket) => serveControlSocket(socket, dispatcher));

	const server: Server = createServer(
		{ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, maxHeaderSize: MAX_HEADER_BYTES },
		(request, response) => {
			const path = pathOf(request.url);
			if (path === "/web" || path === "/web/") {
				if (request.method !== "GET" && request.method !== "HEAD") return sendText(response, 405, "method not allowed");
				return serveWebPage(request, response, web);
			}
			if (path === "/") {
				response.writeHead(302, { Location: "/web" }).end();
				return;
			}
			if (path === "/rpc") {
				const decision = authorizeRequest(auth, request, { websocket: false });
				if (!decision.ok) return sendText(response, decision.status, decision.reason);
				serveRpc(request, response, dispatcher).catch(() => {
					if (!response.headersSent) sendText(response, 400, "request could not be read");
					else response.destroy();
				});
				return;
			}
			if (path === "/ws") return sendText(response, 426, "upgrade required: /ws is a WebSocket endpoint");
			sendText(response, 404, "not found");
		},
	);
	server.maxConnections = MAX_CONNECTIONS;

	server.on("upgrade", (request, socket, head) => {
		socket.on("error", () => socket.destroy());
		if (pathOf(request.url) !== "/ws" || request.method !== "GET") return refuseUpgrade(socket, 404, "not found");
		const decision = authorizeRequest(auth, request, { websocket: true });
		if (!decision.ok) return refuseUpgrade(socket, decision.status, decision.reason);
		if (decision.protocol) chosenProtocol.set(request, decision.protocol);
		sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit("connection", ws, request));
	});
	server.on("clientError", (_error, socket) => {
		if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
		else socket.destroy();
	});

	await new Promise<void>((resolve, reject) => {
		server.once("error", reject);
		server.listen(options.port, options.host, () => {
			server.off("error", reject);
			resolve();
		});
	});

	return {
		address: server.address() as AddressInfo,
		close: async () => {
			const closed = new Promise<void>((resolve) => server.close(() => resolve()));
			for (const client of sockets.clients) client.close(CLOSE_GOING_AWAY, "server shutting down");
			const grace = setTimeout(() => {
				for (const client of sockets.clients) client.terminate();
				server.closeAllConnections();
			}, CLOSE_GRACE_MS);
			server.closeIdleConnections();
			await closed;
			clearTimeout(grace);
			sockets.close();
		},
	};
}

/** The path of a request target without its query string. */
function pathOf(url: string | undefined): string {
	const target = url ?? "/";
	const query = target.indexOf("?");
	return query < 0 ? target : target.slice(0, query);
}
