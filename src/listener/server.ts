/**
 * The control-plane listener: node:http serving the routes of routes.ts (/web, /rpc, /export, /attachments, the guests' page),
 * WebSocket upgrades (upgrade.ts: /ws and /collab/ws/<roomId>), both behind admission.ts's authentication,
 * origin and throttle rules, and a clean shutdown. This file only composes them: the server, its limits and
 * deadlines, the heartbeat, listen and close. It knows the protocol's dispatcher and the collaboration rooms, not pi.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { CollabRooms } from "../collab/rooms.js";
import type { Dispatcher } from "../protocol/dispatch.js";
import { Admission } from "./admission.js";
import type { AuthPolicy } from "./auth.js";
import { HeaderWatch } from "./header-watch.js";
import { replyOnSocket } from "./http-reply.js";
import {
	CLOSE_GRACE_MS,
	DEADLINE_CHECK_INTERVAL_MS,
	DEFAULT_LIMITS,
	HEADERS_TIMEOUT_MS,
	type ListenerLimits,
	MAX_CONNECTIONS,
	MAX_HEADER_BYTES,
} from "./limits.js";
import { OutboundBudget } from "./outbound-queue.js";
import { createRouter, listenerRoutes } from "./routes.js";
import { type Connection, Upgrades } from "./upgrade.js";
import type { WebPageSource } from "./web-route.js";
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

export interface Listener {
	/** The bound address (the real port when 0 was asked). */
	readonly address: AddressInfo;
	/** Stops accepting, closes every socket (1001), and resolves when the server is closed. */
	close(): Promise<void>;
}

export async function startListener(options: ListenerOptions): Promise<Listener> {
	const { dispatcher, web, collab } = options;
	const limits: ListenerLimits = { ...DEFAULT_LIMITS, ...options.limits };
	const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
	const admission = new Admission({ auth: options.auth, limits, log, now: options.now, collab });
	const headerWatch = new HeaderWatch({
		headersTimeoutMs: limits.headersTimeoutMs,
		maxPerAddress: limits.maxPendingPerAddress,
		maxTotal: limits.maxPendingTotal,
	});
	const budget = new OutboundBudget(limits.totalQueuedBytes);
	const connections = new Set<Connection>();
	const upgrades = new Upgrades({
		admission,
		dispatcher,
		limits,
		budget,
		log,
		collab,
		collabJoinTimeoutMs: options.collabJoinTimeoutMs,
		track: (connection, socket) => {
			connections.add(connection);
			socket.once("close", () => connections.delete(connection));
		},
	});
	const serve = createRouter(listenerRoutes({ dispatcher, web, collab }), (request, route) => admission.request(request, route));

	const server: Server = createServer(
		{
			// header-watch.ts enforces the header deadline; node's is a backstop, and may not exceed the request's.
			headersTimeout: Math.min(HEADERS_TIMEOUT_MS, limits.requestTimeoutMs),
			requestTimeout: limits.requestTimeoutMs,
			connectionsCheckingInterval: Math.min(DEADLINE_CHECK_INTERVAL_MS, limits.requestTimeoutMs / 4),
			maxHeaderSize: MAX_HEADER_BYTES,
		},
		(request, response) => {
			// The connection waits for headers again once the response is out (see header-watch.ts).
			const connection = request.socket;
			headerWatch.requestStarted(connection);
			response.once("close", () => headerWatch.requestEnded(connection));
			serve(request, response);
		},
	);
	server.maxConnections = MAX_CONNECTIONS;
	server.on("connection", (socket: Socket) => headerWatch.opened(socket));
	server.on("upgrade", (request, socket: Socket, head: Buffer) => {
		headerWatch.upgraded(socket);
		upgrades.handle(request, socket, head);
	});
	// Requests node could not parse never reach a route: they are answered here, on the raw socket.
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
			collab?.stopAll(); // rooms live in memory only: their guests learn that they ended
			for (const connection of connections) if (connection instanceof ControlConnection) connection.flush(); // before the close frames
			for (const client of upgrades.clients()) client.close(CLOSE_GOING_AWAY, "server shutting down");
			const grace = setTimeout(() => {
				for (const client of upgrades.clients()) client.terminate();
				server.closeAllConnections();
			}, CLOSE_GRACE_MS);
			server.closeIdleConnections();
			await closed;
			clearTimeout(grace);
			upgrades.close();
		},
	};
}
