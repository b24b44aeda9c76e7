/** Limits of the listener, named in one place so docs/protocol.md and docs/security.md can list them all. */

/** Largest inbound WebSocket message (one command); larger ones close the socket with 1009. */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;
/** Largest POST /rpc body; larger ones get 413. */
export const MAX_RPC_BODY_BYTES = 4 * 1024 * 1024;
/** Most lines one JSONL /rpc body may hold. */
export const MAX_RPC_LINES = 256;
/** Commands one WebSocket may have in flight at once; more are answered with an error at once. */
export const MAX_CONCURRENT_COMMANDS = 16;

/**
 * Messages (responses and events) waiting in one WebSocket's queue, in the service, because the client
 * reads slower than they come. Above REPLAY_MAX_EVENTS, so a full `subscribe` replay fits. Beyond it the
 * client is cut off with 1008 "client is not reading messages".
 */
export const MAX_CLIENT_QUEUE_MESSAGES = 65_536;
/**
 * Bytes (JSON text length, counted as the replay window counts them) waiting in one WebSocket's queue.
 * Above REPLAY_MAX_BYTES, so a full replay fits; beyond it the client is cut off with 1008.
 */
export const MAX_CLIENT_QUEUE_BYTES = 16 * 1024 * 1024;
/** Bytes waiting in all WebSocket queues together; beyond it the clients furthest behind are cut off first. */
export const MAX_TOTAL_QUEUED_BYTES = 64 * 1024 * 1024;
/**
 * Bytes handed to one socket and not yet written out. Messages are written only while less than this is
 * pending, so the rest waits in the service's queue, where deltas can be merged and dropping is cheap.
 */
export const WRITE_HIGH_WATER_BYTES = 64 * 1024;
/** How long a client cut off with 1008 has to read the close frame before its connection is destroyed. */
export const CUT_OFF_GRACE_MS = 2_000;
/**
 * The server pings every WebSocket client this often; a client that has not answered the previous ping is
 * cut off with 1008, so a dead peer is found within two intervals.
 */
export const HEARTBEAT_INTERVAL_MS = 30_000;

/** Time allowed to send request headers (from connecting, or from the end of the previous response). */
export const HEADERS_TIMEOUT_MS = 10_000;
/** Time allowed for a whole /rpc request, body included. */
export const REQUEST_TIMEOUT_MS = 60_000;
/**
 * How often node checks its request deadline (and its own header deadline, behind header-watch.ts's timers).
 * Node's default, 30 s, let a request that stalled in its body live 90 s instead of 60.
 */
export const DEADLINE_CHECK_INTERVAL_MS = 1_000;
/** Largest request header block; larger ones get 431. */
export const MAX_HEADER_BYTES = 32 * 1024;
/** Simultaneous TCP connections the listener accepts. */
export const MAX_CONNECTIONS = 256;
/**
 * Connections from one address that are waiting for request headers (just opened, half-sent, or idle
 * between keep-alive requests). A new connection over the cap closes that address's oldest waiting one.
 */
export const MAX_PENDING_HEADERS_PER_ADDRESS = 16;
/** Connections from all addresses waiting for headers; over it, the oldest of the busiest address is closed. */
export const MAX_PENDING_HEADERS_TOTAL = 64;

/**
 * Failed authentications (400, 401, 403) one client address may make per window with one kind of credential:
 * the control plane's (/ws, /rpc, /export) or a guest's (/collab/ws/<roomId>).
 */
export const AUTH_FAILURES_PER_WINDOW = 30;
/**
 * The throttle window; an address over the limit has its failing attempts of that kind answered 429 until its
 * window (from its first failure) ends. Its valid credentials are admitted all along (admission.ts).
 */
export const AUTH_WINDOW_MS = 60_000;

/** How long shutdown waits for WebSocket close handshakes before cutting connections. */
export const CLOSE_GRACE_MS = 1_000;

/** The limits a listener runs with; tests inject small ones. */
export interface ListenerLimits {
	headersTimeoutMs: number;
	requestTimeoutMs: number;
	maxPendingPerAddress: number;
	maxPendingTotal: number;
	clientQueueMessages: number;
	clientQueueBytes: number;
	totalQueuedBytes: number;
	writeHighWaterBytes: number;
	cutOffGraceMs: number;
	heartbeatIntervalMs: number;
	authFailuresPerWindow: number;
	authWindowMs: number;
}

export const DEFAULT_LIMITS: Readonly<ListenerLimits> = {
	headersTimeoutMs: HEADERS_TIMEOUT_MS,
	requestTimeoutMs: REQUEST_TIMEOUT_MS,
	maxPendingPerAddress: MAX_PENDING_HEADERS_PER_ADDRESS,
	maxPendingTotal: MAX_PENDING_HEADERS_TOTAL,
	clientQueueMessages: MAX_CLIENT_QUEUE_MESSAGES,
	clientQueueBytes: MAX_CLIENT_QUEUE_BYTES,
	totalQueuedBytes: MAX_TOTAL_QUEUED_BYTES,
	writeHighWaterBytes: WRITE_HIGH_WATER_BYTES,
	cutOffGraceMs: CUT_OFF_GRACE_MS,
	heartbeatIntervalMs: HEARTBEAT_INTERVAL_MS,
	authFailuresPerWindow: AUTH_FAILURES_PER_WINDOW,
	authWindowMs: AUTH_WINDOW_MS,
};
