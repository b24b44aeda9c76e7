/** Limits of the listener, named in one place so docs/protocol.md can list them all. */

/** Largest inbound WebSocket message (one command); larger ones close the socket with 1009. */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;
/** Largest POST /rpc body; larger ones get 413. */
export const MAX_RPC_BODY_BYTES = 4 * 1024 * 1024;
/** Most lines one JSONL /rpc body may hold. */
export const MAX_RPC_LINES = 256;
/** Commands one WebSocket may have in flight at once; more are answered with an error at once. */
export const MAX_CONCURRENT_COMMANDS = 16;
/**
 * Outbound bytes a WebSocket may have queued (unsent because the client is not reading) before it is
 * closed with 1008: a slow client cannot grow the service's memory without bound.
 */
export const MAX_OUTBOUND_BUFFER_BYTES = 16 * 1024 * 1024;
/** Time allowed to send request headers, and a whole /rpc request body. */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 60_000;
/** Largest request header block. */
export const MAX_HEADER_BYTES = 32 * 1024;
/** Simultaneous TCP connections the listener accepts. */
export const MAX_CONNECTIONS = 256;
/** How long shutdown waits for WebSocket close handshakes before cutting connections. */
export const CLOSE_GRACE_MS = 1_000;
