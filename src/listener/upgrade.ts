/**
 * WebSocket upgrades, in the steps of ws's own split between handleUpgrade (the handshake) and completeUpgrade
 * (the socket handed over):
 *   1. routing: /ws, or /collab/ws/<roomId> when there are rooms, by GET; anything else is 404 whatever its
 *      handshake looks like (a path that is no socket is simply not found);
 *   2. admission (admission.ts): the handshake's shape, the credentials, the throttle of failing attempts; a
 *      refusal is answered on the raw socket, before any upgrade;
 *   3. the handshake, by the ws server of that kind of socket, echoing the subprotocol admission chose;
 *   4. completion: the connection is made and tracked (heartbeat, shutdown).
 * Control sockets and guests have a ws server each: guests get smaller frames and their own subprotocol.
 */
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import type { CollabRooms } from "../collab/rooms.js";
import type { Dispatcher } from "../protocol/dispatch.js";
import { CLOSE_ROOM_FULL, CLOSE_ROOM_STOPPED, MAX_GUEST_FRAME_BYTES, ROOM_FULL_REASON, ROOM_STOPPED_REASON } from "../shared/collab-wire.js";
import type { Admission } from "./admission.js";
import { collabRoomIdOf } from "./collab-route.js";
import { CollabConnection } from "./collab-socket.js";
import { peerAddress } from "./header-watch.js";
import { type ListenerLimits, MAX_FRAME_BYTES } from "./limits.js";
import type { OutboundBudget } from "./outbound-queue.js";
import { refuseOnSocket } from "./refusal.js";
import { findRoute, guestPath, NOT_FOUND, type PathMatcher, pathOf } from "./routes.js";
import { ControlConnection } from "./websocket.js";

/** A connection the listener keeps: pinged by the heartbeat, closed at shutdown. */
export type Connection = ControlConnection | CollabConnection;

export interface UpgradeOptions {
	admission: Admission;
	dispatcher: Dispatcher;
	limits: ListenerLimits;
	budget: OutboundBudget;
	log: (line: string) => void;
	collab?: CollabRooms;
	/** Time a collaboration guest has to send its join frame. */
	collabJoinTimeoutMs?: number;
	/** Keeps `connection` until its socket closes. */
	track(connection: Connection, socket: WebSocket): void;
}

type Open = (request: IncomingMessage, socket: Socket, head: Buffer, path: string) => void;

/** The subprotocol admission chose, remembered from admission to the handshake (ws asks handleProtocols). */
const chosenProtocol = new WeakMap<IncomingMessage, string>();

function socketServer(maxPayload: number): WebSocketServer {
	return new WebSocketServer({
		noServer: true,
		maxPayload,
		perMessageDeflate: false,
		handleProtocols: (_offered, request) => chosenProtocol.get(request) ?? false,
	});
}

/** `address:port` of the client, for log lines. */
function peerOf(request: IncomingMessage): string {
	return `${peerAddress(request.socket)}:${request.socket.remotePort}`;
}

export class Upgrades {
	private readonly control = socketServer(MAX_FRAME_BYTES);
	private readonly guests = socketServer(MAX_GUEST_FRAME_BYTES);
	private readonly routes: ReadonlyArray<{ path: PathMatcher; open: Open }>;

	constructor(private readonly options: UpgradeOptions) {
		this.routes = [
			{ path: "/ws", open: (request, socket, head) => this.openControl(request, socket, head) },
			// guestPath matched, so the path has a room id.
			{ path: guestPath(options.collab), open: (request, socket, head, path) => this.openGuest(request, socket, head, collabRoomIdOf(path)!) },
		];
	}

	/** Answers an upgrade request (node's "upgrade" event): a socket, or a refusal on the raw socket. */
	handle(request: IncomingMessage, socket: Socket, head: Buffer): void {
		socket.on("error", () => socket.destroy());
		const path = pathOf(request.url);
		const route = findRoute(this.routes, path);
		// An opening handshake is a GET (RFC 6455 §4.1): by another method, no socket is found either.
		if (!route || request.method !== "GET") return refuseOnSocket(socket, NOT_FOUND);
		route.open(request, socket, head, path);
	}

	/** Every open WebSocket, control sockets and guests. */
	clients(): WebSocket[] {
		return [...this.control.clients, ...this.guests.clients];
	}

	close(): void {
		this.control.close();
		this.guests.close();
	}

	private openControl(request: IncomingMessage, socket: Socket, head: Buffer): void {
		const admitted = this.options.admission.controlSocket(request);
		if (!admitted.ok) return refuseOnSocket(socket, admitted);
		const { dispatcher, limits, budget, log } = this.options;
		this.handshake(this.control, request, socket, head, admitted.protocol, (ws) => {
			this.options.track(new ControlConnection(ws, dispatcher, { limits, budget, log, peer: peerOf(request), transport: socket }), ws);
		});
	}

	/** A guest admitted to a full or stopped room is told so after the upgrade, with a close code the page can show. */
	private openGuest(request: IncomingMessage, socket: Socket, head: Buffer, roomId: string): void {
		const admitted = this.options.admission.guest(request, roomId);
		if (!admitted.ok) return refuseOnSocket(socket, admitted);
		const { dispatcher, limits, budget, log, collabJoinTimeoutMs } = this.options;
		this.handshake(this.guests, request, socket, head, admitted.protocol, (ws) => {
			const { room, role } = admitted;
			if (room.stopped) return ws.close(CLOSE_ROOM_STOPPED, ROOM_STOPPED_REASON);
			if (room.full) return ws.close(CLOSE_ROOM_FULL, ROOM_FULL_REASON);
			const peer = peerOf(request);
			const guest = new CollabConnection(ws, room, role, admitted.clientNonce, { limits, budget, log, peer, dispatcher, joinTimeoutMs: collabJoinTimeoutMs });
			room.admit(guest);
			this.options.track(guest, ws);
		});
	}

	/** ws's handshake, completed by `complete` with the socket. */
	private handshake(
		server: WebSocketServer,
		request: IncomingMessage,
		socket: Socket,
		head: Buffer,
		protocol: string | undefined,
		complete: (ws: WebSocket) => void,
	): void {
		if (protocol) chosenProtocol.set(request, protocol);
		server.handleUpgrade(request, socket, head, complete);
	}
}
