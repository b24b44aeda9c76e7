/**
 * Machine-readable error codes: every failed response carries one beside its message, so a client can act
 * on the kind of failure without parsing text. Any layer may throw a CodedError; anything else thrown
 * becomes `failed`.
 */

/** Every error code, with what it means (rendered into docs/protocol.md). */
export const ERROR_CODES = {
	parse_error: "The frame is not a JSON object with a string `type`.",
	unknown_command: "No command has this `type`.",
	invalid_command: "A field is missing, unknown, of the wrong type or out of range; the message names it.",
	unknown_session: "No session has this id (loaded or recorded).",
	not_found: "Something the command names (an entry, a model, a file) does not exist.",
	busy: "The session is running (or compacting); wait, `steer`, or `abort` first.",
	conflict: "The command does not fit the current state (a stale draft, a file changed under the session).",
	limit: "A limit was reached (commands in flight, sessions loaded, sizes); the message names it.",
	forbidden: "The command is not allowed here (a path outside the sessions folder, a command over /rpc that needs /ws).",
	unavailable: "The service cannot do this now (still starting, shutting down, no model configured).",
	io_error: "Reading or writing a file failed (a full or read-only disk); the message says which.",
	failed: "The command was carried out but failed (a model or tool error); the message says why.",
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** An error with a code for the wire. */
export class CodedError extends Error {
	constructor(
		readonly code: ErrorCode,
		message: string,
	) {
		super(message);
		this.name = "CodedError";
	}
}

/** The code of anything thrown: its own when it has one, else `failed`. */
export function codeOf(error: unknown): ErrorCode {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" && code in ERROR_CODES ? (code as ErrorCode) : "failed";
}
