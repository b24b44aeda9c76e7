/**
 * `/collab/ws/<roomId>`: the page in guest mode on a plain GET (never token-gated, it carries no data), and a
 * guest's encrypted socket on a WebSocket upgrade, admitted by the capability in its one
 * `skiff-collab-v1.<capability>.<clientNonce>` subprotocol (docs/collab.md). Refusals before the upgrade are
 * the same for an unknown room and a wrong capability, so they tell a guesser nothing.
 */
import type { IncomingMessage } from "node:http";
import {
	CAPABILITY_BYTES,
	COLLAB_PATH_PREFIX,
	COLLAB_SUBPROTOCOL_PREFIX,
	CONNECTION_NONCE_BYTES,
	decodeBase64Url,
	ROOM_ID_PATTERN,
} from "../shared/collab-wire.js";

/** The refusal of a missing or malformed offer, an unknown room and a wrong capability alike. */
export const COLLAB_UNAUTHORIZED = "unauthorized: unknown collaboration room or invalid capability";

/** The room id of a `/collab/ws/<roomId>` path, or undefined for any other path. */
export function collabRoomIdOf(path: string): string | undefined {
	if (!path.startsWith(COLLAB_PATH_PREFIX)) return undefined;
	const roomId = path.slice(COLLAB_PATH_PREFIX.length);
	return ROOM_ID_PATTERN.test(roomId) ? roomId : undefined;
}

/** Whether a path is under `/collab/` (a malformed one is then a 404 of its own). */
export function isCollabPath(path: string): boolean {
	return path.startsWith("/collab/");
}

export type GuestOffer =
	| { ok: true; protocol: string; capability: Uint8Array; clientNonce: Uint8Array }
	| { ok: false; status: 400 | 401; reason: string };

/** The guest's one collaboration subprotocol, decoded; other offered subprotocols are ignored. */
export function readGuestOffer(request: IncomingMessage): GuestOffer {
	const raw = request.headers["sec-websocket-protocol"];
	const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
	const offers = values
		.flatMap((v) => v.split(","))
		.map((p) => p.trim())
		.filter((p) => p.startsWith(COLLAB_SUBPROTOCOL_PREFIX));
	if (offers.length > 1) return { ok: false, status: 400, reason: "bad request: offer exactly one collaboration subprotocol" };
	const protocol = offers[0];
	const parts = protocol?.slice(COLLAB_SUBPROTOCOL_PREFIX.length).split(".");
	const capability = parts?.length === 2 ? decodeBase64Url(parts[0]!, CAPABILITY_BYTES) : undefined;
	const clientNonce = parts?.length === 2 ? decodeBase64Url(parts[1]!, CONNECTION_NONCE_BYTES) : undefined;
	if (!protocol || !capability || !clientNonce) return { ok: false, status: 401, reason: COLLAB_UNAUTHORIZED };
	return { ok: true, protocol, capability, clientNonce };
}
