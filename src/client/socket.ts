/**
 * The little of the WebSocket API the client needs, met by the browser's `WebSocket` and by the `ws` package
 * alike (and by a test's fake), so the client itself depends on neither.
 */

/** `readyState` of an open socket: the same number in every implementation. */
export const SOCKET_OPEN = 1;

import type { ConnectionRefusal } from "./refusal.js";

/** A WebSocket as the client uses it. */
export interface WebSocketLike {
	readonly readyState: number;
	send(data: string): void;
	close(code?: number, reason?: string): void;
	// The client sets these handlers and never calls them: `never` lets each implementation's event type fit.
	onopen: ((event: never) => void) | null;
	onmessage: ((event: never) => void) | null;
	onerror: ((event: never) => void) | null;
	onclose: ((event: never) => void) | null;
	/** Why it closed before opening, when the implementation knows (the Node entry's socket); a browser never does. */
	readonly refusal?: ConnectionRefusal;
}

/** A WebSocket class: the browser's, `ws` (the Node entry's default), or a fake. */
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike;

/** The fields of the events the client reads; every implementation provides at least these. */
export interface SocketMessageEvent {
	data: unknown;
}

export interface SocketCloseEvent {
	code: number;
	reason: string;
}
