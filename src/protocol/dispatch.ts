/**
 * Turns one inbound frame into one response: parse, check the envelope, validate the fields against the
 * command's schema, run the handler. Every failure becomes a response naming what was wrong; nothing
 * thrown here escapes to the transport.
 */
import type { CommandRegistry } from "./command.js";
import type { ClientLink, CommandContext, EventClient, ProtocolServices } from "./context.js";
import { errorMessage, errorResponse, PARSE_COMMAND, type ResponseEnvelope, successResponse } from "./envelope.js";
import { EventSubscriptions } from "./subscriptions.js";

export interface Dispatcher {
	/** Handles one command given as JSON text. */
	dispatchText(text: string, client: ClientLink): Promise<ResponseEnvelope>;
	/** Handles one already-parsed command value. */
	dispatchValue(value: unknown, client: ClientLink): Promise<ResponseEnvelope>;
	/** The link of a client with an event stream: the events it follows are sent as JSON text through `send`. */
	eventClient(send: (json: string) => void): EventClient;
}

export function createDispatcher(registry: CommandRegistry, services: ProtocolServices): Dispatcher {
	const { runtime } = services;
	const dispatchValue = async (value: unknown, client: ClientLink): Promise<ResponseEnvelope> => {
		if (typeof value !== "object" || value === null || Array.isArray(value)) {
			return errorResponse(PARSE_COMMAND, undefined, "A command must be a JSON object with a string field `type`");
		}
		const { type, id, sessionId, ...fields } = value as Record<string, unknown>;
		const echoId = typeof id === "string" ? id : undefined;
		if (typeof type !== "string" || type.length === 0) {
			return errorResponse(PARSE_COMMAND, echoId, "Missing string field `type`");
		}
		if (id !== undefined && typeof id !== "string") {
			return errorResponse(type, undefined, "Invalid command: `id` must be a string");
		}
		if (sessionId !== undefined && typeof sessionId !== "string") {
			return errorResponse(type, echoId, "Invalid command: `sessionId` must be a string");
		}
		const command = registry.get(type);
		if (!command) return errorResponse(type, echoId, `Unknown command: ${type}`);
		if (client.transport === "rpc" && command.definition.rpc === false) {
			return errorResponse(type, echoId, `${type} needs an event stream: use the /ws WebSocket`);
		}
		if (!command.check(fields)) {
			return errorResponse(type, echoId, `Invalid command: ${describeErrors(command.errors(fields))}`);
		}
		const context: CommandContext = {
			...services,
			sessionId,
			client,
			session: async () => {
				const session = await runtime.get(sessionId);
				client.follow(session.id);
				return session;
			},
		};
		try {
			return successResponse(type, echoId, await command.definition.handler(fields as never, context));
		} catch (error) {
			return errorResponse(type, echoId, errorMessage(error));
		}
	};
	return {
		dispatchValue,
		eventClient: (send) => new EventSubscriptions(services.streams, send),
		dispatchText: async (text, client) => {
			let value: unknown;
			try {
				value = JSON.parse(text);
			} catch (error) {
				return errorResponse(PARSE_COMMAND, undefined, `Failed to parse command: ${errorMessage(error)}`);
			}
			return dispatchValue(value, client);
		},
	};
}

/** The first few schema errors as `field: problem`, unknown fields named as such. */
function describeErrors(errors: Array<{ instancePath: string; message: string; params?: unknown }>): string {
	const parts: string[] = [];
	for (const error of errors) {
		const params = error.params as { additionalProperties?: string[]; requiredProperties?: string[] } | undefined;
		if (params?.additionalProperties) {
			parts.push(`unknown field${params.additionalProperties.length > 1 ? "s" : ""} ${params.additionalProperties.map((f) => `\`${f}\``).join(", ")}`);
		} else if (params?.requiredProperties) {
			parts.push(`missing field${params.requiredProperties.length > 1 ? "s" : ""} ${params.requiredProperties.map((f) => `\`${f}\``).join(", ")}`);
		} else if (error.message === "schema is false") {
			continue; // the additionalProperties error above already names the field
		} else {
			const field = error.instancePath.replace(/^\//, "").replace(/\//g, ".");
			parts.push(field ? `\`${field}\` ${error.message}` : error.message);
		}
	}
	return [...new Set(parts)].slice(0, 3).join("; ") || "fields do not match the schema";
}
