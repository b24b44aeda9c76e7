/**
 * The typed client of Skiff's control protocol (docs/protocol.md, "Clients"). This entry is for browsers and
 * bundlers, and for Node with a `WebSocket` passed in; in Node, `import "skiff/client"` resolves to node.ts,
 * which supplies `ws`.
 */
export {
	type ConnectionStatus,
	COMMANDS_IN_FLIGHT,
	DEFAULT_TIMEOUT_MS,
	type ReconnectOptions,
	type ResyncNotice,
	SkiffClient,
	type SkiffClientOptions,
	type StatusChange,
} from "./skiff-client.js";
export type { CallOptions, CommandMethod, CommandMethods } from "./command-methods.js";
export { type ClientErrorCode, SkiffCommandError, SkiffConnectionError } from "./errors.js";
export type { ConnectionRefusal, RefusalKind } from "./refusal.js";
export type { WebSocketConstructor, WebSocketLike } from "./socket.js";
export type { UploadedAttachment } from "./upload.js";
export { BACKOFF_CAP_MS, BACKOFF_START_MS, backoffDelay } from "./backoff.js";
export * from "./protocol.generated.js";
