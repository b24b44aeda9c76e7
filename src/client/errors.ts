/** The errors the client rejects with: a command that failed, and a connection that could not be made. */
import type { ErrorCode } from "./protocol.generated.js";
import type { ConnectionRefusal, RefusalKind } from "./refusal.js";

/** Failures the client reports itself, without an answer from the service. */
export type ClientErrorCode =
	/** The socket was not open when the command was called. */
	| "not_connected"
	/** The connection closed (or was replaced, or `close()` was called) before the answer came. */
	| "connection_lost"
	/** No answer within the call's `timeoutMs`. */
	| "timeout";

/** A command failed: the service's error (with its `code`), or one of the client's own. */
export class SkiffCommandError extends Error {
	override readonly name = "SkiffCommandError";

	constructor(
		/** The command's `type`. */
		readonly command: string,
		readonly code: ErrorCode | ClientErrorCode,
		message: string,
	) {
		super(message);
	}
}

/** `connect()` did not lead to a connection: refused, unreachable, or closed by the application meanwhile. */
export class SkiffConnectionError extends Error {
	override readonly name = "SkiffConnectionError";
	readonly kind: RefusalKind | "closed";
	/** The HTTP status of a refused upgrade, when known (Node only). */
	readonly status: number | undefined;

	constructor(refusal: ConnectionRefusal | undefined) {
		super(refusal?.message ?? "the client was closed before it connected");
		this.kind = refusal?.kind ?? "closed";
		this.status = refusal?.status;
	}
}
