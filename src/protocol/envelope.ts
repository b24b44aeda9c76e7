/**
 * The wire envelopes, kept from pi's RPC protocol: a command is `{type, id?, sessionId?, ...fields}`, a
 * response is `{id, type:"response", command, success, data | error}`, and anything else the server sends
 * is an event `{type, sessionId, seq, ...}`.
 */
import type { ErrorCode } from "../shared/errors.js";
import { redactSecrets } from "../shared/redact.js";

export interface ResponseEnvelope {
	id?: string;
	type: "response";
	command: string;
	success: boolean;
	data?: unknown;
	error?: string;
	/** On failure: what kind of failure (see ERROR_CODES). */
	code?: ErrorCode;
}

/** The `command` name used when a frame could not be read as a command at all. */
export const PARSE_COMMAND = "parse";

export function successResponse(command: string, id: string | undefined, data: unknown): ResponseEnvelope {
	const response: ResponseEnvelope = { id, type: "response", command, success: true };
	if (data !== undefined) response.data = data;
	return response;
}

/** A failure response; the message passes through secret redaction so no credential leaves in an error. */
export function errorResponse(command: string, id: string | undefined, message: string, code: ErrorCode): ResponseEnvelope {
	return { id, type: "response", command, success: false, error: redactSecrets(message), code };
}

/** The message of anything thrown, for an error response. */
export function errorMessage(error: unknown): string {
	if (error instanceof Error) return error.message || error.name;
	return String(error);
}
