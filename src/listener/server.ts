/**
 * The control-plane listener: node:http with routes /web, /ws (WebSocket), /rpc, /export (session
 * downloads) and /collab/ws/<roomId> (collaboration guests), authentication and origin checks before anything
 * else runs, and a clean shutdown. It knows the protocol's dispatcher and the collaboration rooms, not pi.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { WebSocketServer } from "ws";
import type { CollabRooms } from "../collab/rooms.js";
import type { Dispatcher } from "../protocol/dispatch.js";
import { CLOSE_ROOM_FULL, CLOSE_ROOM_STOPPED, MAX_GUEST_FRAME_BYTES, ROOM_FULL_REASON, ROOM_STOPPED_REASON } from "../shared/collab-wire.js";
import { type AuthDecision, type AuthPolicy, authorizeDownload, authorizeRequest } from "./auth.js";
import { AuthThrottle } from "./auth-throttle.js";
import { COLLAB_UNAUTHORIZED, collabRoomIdOf, isCollabPath, readGuestOffer } from "./collab-route.js";
import { CollabConnection } from "./collab-socket.js";
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
	/** The collaboration rooms whose guests connect at /collab/ws/<roomId>; none (404) when absent. */
	collab?: CollabRooms;
	/** Time a collaboration guest has to send its join frame (tests shorten it). */
	collabJoinTimeoutMs?: number;
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
	const connections = new Set<ControlConnection | CollabConnection>();

	const sockets = new WebSocketServer({
		noServer: true,
		maxPayload: MAX_FRAME_BYTES,
		perMessageDeflate: false,
		handleProtocols: (_offered, request) => chosenProtocol.get(request) ?? false,
	});
	// Guests have their own server: smaller frames, their own subprotocol.
	const guestSockets = new WebSocketServer({
		noServer: true,
		maxPayload: MAX_GUEST_FRAME_BYTES,
		perMessageDeflate: false,
		handleProtocols: (_offered, request) => chosenProtocol.get(request) ?? false,
	});
	sockets.on("connection", (socket, request: IncomingMessage) => {
		const peer = `${peerAddress(request.socket)}:${request.socket.remotePort}`;
		const connection = new ControlConnection(socket, dispatcher, { limits, budget, log, peer });
		connections.add(connection);
		socket.once("close", () => connections.delete(connection));
	});

	/** The throttle's refusal of an address with too many failures, if it has them. */
	const throttled = (address: string): Admission | undefined => {
		const waitMs = throttle.retryAfterMs(address);
		if (waitMs <= 0) return undefined;
		const seconds = String(Math.ceil(waitMs / 1000));
		const reason = `too many failed authentication attempts from this address: retry in ${seconds} s`;
		return { ok: false, status: 429, reason, headers: { "Retry-After": seconds } };
	};
	const recordFailure = (address: string, route: string, status: number, reason: string) => {
		log(`skiff: authentication failed from ${address} on ${route}: ${status} ${reason}`);
		if (throttle.recordFailure(address)) {
			log(
				`skiff: ${address} failed authentication ${limits.authFailuresPerWindow} times within ` +
					`${limits.authWindowMs / 1000} s: /ws, /rpc, /export and /collab answer it 429 until that window ends`,
			);
		}
	};

	/** The throttle first (a throttled address is refused before its credentials are looked at), then the policy. */
	const admit = (request: IncomingMessage, route: "/ws" | "/rpc" | "/export"): Admission => {
		const address = peerAddress(request.socket);
		const refusal = throttled(address);
		if (refusal) return refusal;
		const decision = route === "/export" ? authorizeDownload(auth, request) : authorizeRequest(auth, request, { websocket: route === "/ws" });
		if (!decision.ok) recordFailure(address, route, decision.status, decision.reason);
		return decision;
	};

	/**
	 * A guest's upgrade: the throttle, then its capability (an unknown room and a wrong capability are refused
	 * alike, before the upgrade); a full or stopped room is told so after it, with a close code the page can show.
	 */
	const upgradeGuest = (request: IncomingMessage, socket: Socket, head: Buffer, roomId: string) => {
		const address = peerAddress(request.socket);
		const refusal = throttled(address);
		if (refusal && !refusal.ok) return replyOnSocket(socket, refusal.status, refusal.reason, "headers" in refusal ? refusal.headers : {});
		const offer = readGuestOffer(request);
		const admitted = offer.ok ? options.collab?.authenticate(roomId, offer.capability) : undefined;
		if (!offer.ok || !admitted) {
			const status = offer.ok ? 401 : offer.status;
			const reason = offer.ok ? COLLAB_UNAUTHORIZED : offer.reason;
			recordFailure(address, "/collab", status, reason);
			return replyOnSocket(socket, status, reason);
		}
		chosenProtocol.set(request, offer.protocol);
		guestSockets.handleUpgrade(request, socket, head, (ws) => {
			const { room, role } = admitted;
			if (room.stopped) return ws.close(CLOSE_ROOM_STOPPED, ROOM_STOPPED_REASON);
			if (room.full) return ws.close(CLOSE_ROOM_FULL, ROOM_FULL_REASON);
			const peer = `${address}:${request.socket.remotePort}`;
			const guest = new CollabConnection(ws, room, role, offer.clientNonce, {
				limits,
				budget,
				log,
				peer,
				dispatcher,
				joinTimeoutMs: options.collabJoinTimeoutMs,
			});
			room.admit(guest);
			connections.add(guest);
			ws.once("close", () => connections.delete(guest));
		});
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
			if (isCollabPath(path)) {
				// The page in guest mode, for any well-formed room id: whether a room exists is never told here.
				if (!options.collab || !collabRoomIdOf(path)) return sendText(response, 404, "not found");
				if (request.method !== "GET" && request.method !== "HEAD") return sendText(response, 405, "method not allowed");
				return serveWebPage(request, response, web, path);
			}
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
		const path = pathOf(request.url);
		const roomId = options.collab ? collabRoomIdOf(path) : undefined;
		if ((path !== "/ws" && roomId === undefined) || request.method !== "GET") return replyOnSocket(socket, 404, "not found");
		// RFC 6455 §4.1: the opening handshake is an HTTP/1.1 request with a Host header.
		if (request.httpVersionMajor < 1 || (request.httpVersionMajor === 1 && request.httpVersionMinor < 1)) {
			return replyOnSocket(socket, 400, "bad request: a WebSocket upgrade must be an HTTP/1.1 request");
		}
		if (!request.headers.host) return replyOnSocket(socket, 400, "bad request: a WebSocket upgrade needs a Host header");
		if (roomId !== undefined) return upgradeGuest(request, socket, head, roomId);
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
			options.collab?.stopAll(); // rooms live in memory only: their guests learn that they ended
			const clients = () => [...sockets.clients, ...guestSockets.clients];
			for (const client of clients()) client.close(CLOSE_GOING_AWAY, "server shutting down");
			const grace = setTimeout(() => {
				for (const client of clients()) client.terminate();
				server.closeAllConnections();
			}, CLOSE_GRACE_MS);
			server.closeIdleConnections();
			await closed;
			clearTimeout(grace);
			sockets.close();
			guestSockets.close();
		},
	};
}

/** The path of a request target without its query string. */
function pathOf(url: string | undefined): string {
	const target = url ?? "/";
	const query = target.indexOf("?");
	return query < 0 ? target : target.slice(0, query);
}
