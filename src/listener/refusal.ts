/**
 * A refusal: a status, a short reason, and what the status needs said with it: when a throttled client may try
 * again (429, Retry-After), which methods a path does serve (405, Allow). One function turns it into headers and
 * both senders use it, so a refusal keeps its headers whether it is answered on an HTTP response or, for a
 * refused WebSocket upgrade, on the raw socket; there is no other way to send one.
 */
import type { ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { replyOnSocket, sendText } from "./http-reply.js";

export interface Refusal {
	readonly ok: false;
	readonly status: number;
	/** Plain text for the body: what is wrong, never a credential. */
	readonly reason: string;
	/** Seconds until a throttled client may try again. */
	readonly retryAfterSeconds?: number;
	/** The methods the path serves, for a wrong one. */
	readonly allow?: readonly string[];
}

/** The headers a refusal carries besides the plain-text reply's own. */
export function refusalHeaders(refusal: Refusal): Record<string, string> {
	const headers: Record<string, string> = {};
	if (refusal.retryAfterSeconds !== undefined) headers["Retry-After"] = String(refusal.retryAfterSeconds);
	if (refusal.allow !== undefined) headers.Allow = refusal.allow.join(", ");
	return headers;
}

/** Answers an HTTP request with the refusal. */
export function refuse(response: ServerResponse, refusal: Refusal): void {
	sendText(response, refusal.status, refusal.reason, refusalHeaders(refusal));
}

/** Answers on the raw socket of an upgrade with the refusal, then closes it. */
export function refuseOnSocket(socket: Duplex, refusal: Refusal): void {
	replyOnSocket(socket, refusal.status, refusal.reason, refusalHeaders(refusal));
}
