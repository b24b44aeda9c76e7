/**
 * Turns one inbound frame into one response: parse, check the envelope, validate the fields against the
 * command's schema, run the handler. Every failure becomes a response naming what was wrong; nothing
 * thrown here escapes to the transport.
 */
import type { Readable } from "node:stream";
import { codeOf, type ErrorCode } from "../shared/errors.js";
import { type StoredAttachment, UploadRefused } from "./attachment-store.js";
import { redactKept } from "../shared/redact-kept.js";
import type { CommandRegistry } from "./command.js";
import { echo } from "./echo.js";
import { describeSchemaErrors } from "./schema-errors.js";
import type { ClientLink, CommandContext, EventClient, ProtocolServices } from "./context.js";
import { ServiceDirectory } from "./service-key.js";
import { errorMessage, errorResponse, PARSE_COMMAND, type ResponseEnvelope, successResponse } from "./envelope.js";
import type { PublishedEvent } from "./event-hub.js";
import { type DownloadFormat, type SessionDownload, sessionDownload } from "./session-download.js";
import { EventSubscriptions } from "./subscriptions.js";

/** Longest `id`: one up to this length is echoed exactly in every response; a longer one is refused. */
export const MAX_ID_CHARS = 256;
/** Longest `sessionId` accepted (session ids are UUIDs); a longer one is refused without being echoed. */
export const MAX_SESSION_ID_CHARS = 256;
/** Longest error message a handler's failure is reported with; the rest is cut. */
export const MAX_ERROR_CHARS = 2048;

/**
 * A handler's failure as reported: cut to MAX_ERROR_CHARS and "…", redacted without looking past the cut more
 * than redaction needs, so a secret that straddles the cut is masked rather than shown in half.
 */
function reportedError(error: unknown): string {
	const { text, cut } = redactKept(errorMessage(error), MAX_ERROR_CHARS);
	return cut ? `${text}…` : text;
}

/** The error response to a command value refused before it is handled, echoing its `type` and `id` when it has them. */
export function refusalOf(value: unknown, message: string, code: ErrorCode): ResponseEnvelope {
	const { type, id } = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
	const name = typeof type === "string" && type.length > 0 ? echo(type) : PARSE_COMMAND;
	return errorResponse(name, echoableId(id), message, code);
}

/** The error response to a frame refused before it is handled (see refusalOf); unreadable JSON echoes nothing. */
export function refusal(text: string, message: string, code: ErrorCode): ResponseEnvelope {
	try {
		return refusalOf(JSON.parse(text), message, code);
	} catch {
		return errorResponse(PARSE_COMMAND, undefined, message, code);
	}
}

export interface Dispatcher {
	/** Handles one command given as JSON text. */
	dispatchText(text: string, client: ClientLink): Promise<ResponseEnvelope>;
	/** Handles one already-parsed command value. */
	dispatchValue(value: unknown, client: ClientLink): Promise<ResponseEnvelope>;
	/**
	 * The link of a client with an event stream: the events it follows are handed to `deliver` (which can
	 * send `published.json`, or merge `published.event` with its neighbours when the client is behind).
	 */
	eventClient(deliver: (published: PublishedEvent) => void, drained?: () => Promise<void>): EventClient;
	/**
	 * The error response to a frame the transport refuses before handling it (e.g. too many commands in
	 * flight), with the frame's `type` and `id` echoed when they can be read.
	 */
	refuse(text: string, message: string, code: ErrorCode): ResponseEnvelope;
	/**
	 * A session as a file to download (GET /export/...); fails with a CodedError (`unknown_session`, `conflict`
	 * when nothing is recorded yet, ...).
	 */
	download(sessionId: string, format: DownloadFormat): Promise<SessionDownload>;
	/**
	 * Keeps an uploaded image for a later message (POST /attachments; attachment-store.ts); fails with an
	 * UploadRefused naming the status and what was wrong.
	 */
	upload(body: Readable, mimeType: string | undefined, length: number | undefined): Promise<StoredAttachment>;
}

/**
 * `features`: the started features' services, reached by handlers with `context.service(key)` (none: every
 * feature command answers `unavailable`).
 */
export function createDispatcher(registry: CommandRegistry, services: ProtocolServices, features = new ServiceDirectory()): Dispatcher {
	const { runtime } = services;
	const dispatchValue = async (value: unknown, client: ClientLink): Promise<ResponseEnvelope> => {
		if (typeof value !== "object" || value === null || Array.isArray(value)) {
			return errorResponse(PARSE_COMMAND, undefined, "A command must be a JSON object with a string field `type`", "parse_error");
		}
		const { type, id, sessionId, ...fields } = value as Record<string, unknown>;
		const echoId = echoableId(id);
		if (typeof type !== "string" || type.length === 0) {
			return errorResponse(PARSE_COMMAND, echoId, "Missing string field `type`", "parse_error");
		}
		const command = registry.get(type);
		const name = command ? type : echo(type);
		if (id !== undefined && typeof id !== "string") {
			return errorResponse(name, undefined, "Invalid command: `id` must be a string", "invalid_command");
		}
		if (typeof id === "string" && echoId === undefined) {
			return errorResponse(name, undefined, `Invalid command: \`id\` is longer than ${MAX_ID_CHARS} characters`, "invalid_command");
		}
		if (sessionId !== undefined && typeof sessionId !== "string") {
			return errorResponse(name, echoId, "Invalid command: `sessionId` must be a string", "invalid_command");
		}
		if (typeof sessionId === "string" && sessionId.length > MAX_SESSION_ID_CHARS) {
			return errorResponse(name, echoId, `Invalid command: \`sessionId\` is longer than ${MAX_SESSION_ID_CHARS} characters`, "invalid_command");
		}
		if (!command) return errorResponse(name, echoId, `Unknown command: ${name}`, "unknown_command");
		if (client.transport === "rpc" && command.definition.rpc === false) {
			return errorResponse(type, echoId, `${type} needs an event stream: use the /ws WebSocket`, "forbidden");
		}
		if (!command.check(fields)) {
			return errorResponse(type, echoId, `Invalid command: ${describeSchemaErrors(command.errors(fields), fields)}`, "invalid_command");
		}
		const addressed = sessionId ?? client.defaultSessionId;
		const context: CommandContext = {
			...services,
			sessionId: addressed,
			client,
			session: async () => {
				const session = await runtime.get(addressed);
				client.follow(session.id);
				return session;
			},
			service: (key) => features.get(key),
		};
		try {
			return successResponse(type, echoId, await command.definition.handler(fields as never, context));
		} catch (error) {
			return errorResponse(type, echoId, reportedError(error), codeOf(error));
		}
	};
	/**
	 * Every frame gets an answer: should checking it throw (a bug, a value no check foresaw), the client is told
	 * so instead of having its connection dropped without one.
	 */
	const answer = (value: unknown, client: ClientLink): Promise<ResponseEnvelope> =>
		dispatchValue(value, client).catch((error: unknown) => {
			const { type, id } = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
			const name = typeof type === "string" && type.length > 0 ? echo(type) : PARSE_COMMAND;
			return errorResponse(name, echoableId(id), `The command could not be checked: ${reportedError(error)}`, "failed");
		});
	return {
		dispatchValue: answer,
		eventClient: (deliver, drained) => new EventSubscriptions(services.streams, deliver, drained),
		refuse: refusal,
		download: (sessionId, format) => sessionDownload(runtime, sessionId, format),
		upload: async (body, mimeType, length) => {
			if (!services.attachments) throw new UploadRefused(503, "This service keeps no uploads");
			return services.attachments.save(body, mimeType, length);
		},
		dispatchText: async (text, client) => {
			let value: unknown;
			try {
				value = JSON.parse(text);
			} catch (error) {
				return errorResponse(PARSE_COMMAND, undefined, `Failed to parse command: ${errorMessage(error)}`, "parse_error");
			}
			return answer(value, client);
		},
	};
}

/** The `id` to echo: a string within MAX_ID_CHARS, else none. */
function echoableId(id: unknown): string | undefined {
	return typeof id === "string" && id.length <= MAX_ID_CHARS ? id : undefined;
}
