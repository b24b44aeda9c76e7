/**
 * The control-plane listener: node:http with routes /web, /ws (WebSocket), /rpc and /export (session
 * downloads), authentication and origin checks before anything else runs, and a clean shutdown. It knows the
 * protocol's dispatcher, not pi.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { WebSocketServer } from "ws";
import type { Dispatcher } from "../protocol/dispatch.js";
import { type AuthDecision, type AuthPolicy, authorizeDownload, authorizeRequest } from "./auth.js";
import { AuthThrottle } from "./auth-throttle.js";
import { exportTarget, isExportPath, serveExport } from "./export-route.js";
import { HeaderWatch, peerAddress } from "./header-watch.js";
import { replyOnSocket, sendText } from "./http-reply.js";
import {
	CLOSE_GRACE_MS,
	DEFAULT_LIMITS,
	HEADERS_TIMEOUT_MS,
	type ListenerLimits,
	MAX_CONNECTIONS,
	MAX_FRAME_BYTES,
	MAX_HEADER_BYTES,
	REQUEST_TIMEOUT_MS,
} from "./limits.js";
import { OutboundBudget } from "./outbound-queue.js";
import { serveRpc } from "./rpc-route.js";
import { serveWebPage, type WebPageSource } from "./web-route.js";
import { CLOSE_GOING_AWAY, ControlConnection } from "./websocket.js";

export interface ListenerOptions {
	host: string;
	port: number;
	auth: AuthPolicy;
	dispatcher: Dispatcher;
	web: WebPageSource;
	/** Limits and timings; each defaults to its constant in limits.ts (tests inject small ones). */
	limits?: Partial<ListenerLimits>;
	/**
	 * Where operational lines go (failed authentication, throttling, clients cut off); stderr by default.
	 * Lines name addresses, routes and reasons, never a credential or a header value.
	 */
	log?: (line: string) => void;
	/** The authentication throttle's clock in ms; Date.now by default. */
	now?: () => number;
}

/** A refusal with the headers it needs (Retry-After for 429), or the authorization's decision. */
type Admission = AuthDecision | { ok: false; status: 429; reason: string; headers: Record<string, string> };

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
	const limits: ListenerLimits = { ...DEFAULT_LIMITS, ...options.limits };
	const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
	const throttle = new AuthThrottle({ maxFailures: limits.authFailuresPerWindow, windowMs: limits.authWindowMs }, options.now);
	const headerWatch = new HeaderWatch({
		headersTimeoutMs: limits.headersTimeoutMs,
		maxPerAddress: limits.maxPendingPerAddress,
		maxTotal: limits.maxPendingTotal,
	});
	const budget = new OutboundBudget(limits.totalQueuedBytes);
	const connections = new Set<ControlConnection>();

	const sockets = new WebSocketServer({
		noServer: true,
		maxPayload: MAX_FRAME_BYTES,
		perMessageDeflate: false,
		handleProtocols: (_offered, request) => chosenProtocol.get(request) ?? false,
	});
	sockets.on("connection", (socket, request: IncomingMessage) => {
		const peer = `${peerAddress(request.socket)}:${request.socket.remotePort}`;
		const connection = new ControlConnection(socket, dispatcher, { limits, budget, log, peer });
		connections.add(connection);
		socket.once("close", () => connections.delete(connection));
	});

	/** The throttle first (a throttled address is refused before its credentials are looked at), then the policy. */
	const admit = (request: IncomingMessage, route: "/ws" | "/rpc" | "/export"): Admission => {
		const address = peerAddress(request.socket);
		const waitMs = throttle.retryAfterMs(address);
		if (waitMs > 0) {
			const seconds = String(Math.ceil(waitMs / 1000));
			const reason = `too many failed authentication attempts from this address: retry in ${seconds} s`;
			return { ok: false, status: 429, reason, headers: { "Retry-After": seconds } };
		}
		const decision = route === "/export" ? authorizeDownload(auth, request) : authorizeRequest(auth, request, { websocket: route === "/ws" });
		if (!decision.ok) {
			log(`skiff: authentication failed from ${address} on ${route}: ${decision.status} ${decision.reason}`);
			if (throttle.recordFailure(address)) {
				log(
					`skiff: ${address} failed authentication ${limits.authFailuresPerWindow} times within ` +
						`${limits.authWindowMs / 1000} s: /ws, /rpc and /export answer it 429 until that window ends`,
				);
			}
		}
		return decision;
	};

	const server: Server = createServer(
		{ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, maxHeaderSize: MAX_HEADER_BYTES },
		(request, response) => {
			const connection = request.socket;
			headerWatch.requestStarted(connection);
			response.once("close", () => headerWatch.requestEnded(connection));
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
				const decision = admit(request, "/rpc");
				if (!decision.ok) return sendText(response, decision.status, decision.reason, "headers" in decision ? decision.headers : {});
				serveRpc(request, response, dispatcher).catch(() => {
					if (!response.headersSent) sendText(response, 400, "request could not be read");
					else response.destroy();
				});
				return;
			}
			if (path === "/ws") return sendText(response, 426, "upgrade required: /ws is a WebSocket endpoint");
			if (isExportPath(path)) {
				if (request.method !== "GET" && request.method !== "HEAD") {
					response.setHeader("Allow", "GET, HEAD");
					return sendText(response, 405, "method not allowed: GET /export/<sessionId>.html or .jsonl");
				}
				const decision = admit(request, "/export");
				if (!decision.ok) return sendText(response, decision.status, decision.reason, "headers" in decision ? decision.headers : {});
				const target = exportTarget(path);
				if (!target) return sendText(response, 404, "not found: export a session as /export/<sessionId>.html or /export/<sessionId>.jsonl");
				serveExport(request, response, dispatcher, target).catch(() => {
					if (!response.headersSent) sendText(response, 500, "the export failed");
					else response.destroy();
				});
				return;
			}
			sendText(response, 404, "not found");
		},
	);
	server.maxConnections = MAX_CONNECTIONS;
	server.on("connection", (socket: Socket) => headerWatch.opened(socket));

	server.on("upgrade", (request: IncomingMessage, socket: Socket, head: Buffer) => {
		headerWatch.upgraded(socket);
		socket.on("error", () => socket.destroy());
		if (pathOf(request.url) !== "/ws" || request.method !== "GET") return replyOnSocket(socket, 404, "not found");
		// RFC 6455 §4.1: the opening handshake is an HTTP/1.1 request with a Host header.
		if (request.httpVersionMajor < 1 || (request.httpVersionMajor === 1 && request.httpVersionMinor < 1)) {
			return replyOnSocket(socket, 400, "bad request: a WebSocket upgrade must be an HTTP/1.1 request");
		}
		if (!request.headers.host) return replyOnSocket(socket, 400, "bad request: a WebSocket upgrade needs a Host header");
		const decision = admit(request, "/ws");
		if (!decision.ok) return replyOnSocket(socket, decision.status, decision.reason, "headers" in decision ? decision.headers : {});
		if (decision.protocol) chosenProtocol.set(request, decision.protocol);
		sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit("connection", ws, request));
	});
	server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
		if (error.code === "HPE_HEADER_OVERFLOW") {
			return replyOnSocket(socket, 431, `request header fields too large (limit ${MAX_HEADER_BYTES} bytes)`);
		}
		if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") return replyOnSocket(socket, 408, "request timed out");
		replyOnSocket(socket, 400, "bad request: malformed HTTP request");
	});

	const heartbeat = setInterval(() => {
		for (const connection of connections) connection.heartbeat();
	}, limits.heartbeatIntervalMs);
	heartbeat.unref();

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
			clearInterval(heartbeat);
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
