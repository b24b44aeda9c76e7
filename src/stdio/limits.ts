/** Limits of `--mode rpc` (standard input and output), named in one place for docs/protocol.md. */

/** Longest command line read from standard input (its bytes before the line feed); longer ones get a parse error. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;
/** Commands in flight at once (as on one WebSocket); more are answered with a `limit` error at once. */
export const MAX_CONCURRENT_COMMANDS = 16;
